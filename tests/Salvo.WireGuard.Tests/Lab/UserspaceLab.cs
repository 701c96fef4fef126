using System.Diagnostics;
using System.Globalization;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>wireguard-salvo IFACE</c> as wg-quick runs it: the apphost the build puts beside the tests (the checkout's one
/// executable path, <c>bin/Release/net10.0/wireguard-salvo</c>), in a lab namespace. Interface names carry this process's
/// PID: /var/run/wireguard is shared by every namespace and by other test runs.
/// </summary>
internal static class UserspaceLab
{
    private static int s_next;

    /// <summary>The daemon's executable, one path as WG_QUICK_USERSPACE_IMPLEMENTATION takes it.</summary>
    public static string Daemon => Tests.Daemon.Executable;

    /// <summary>Why the userspace lab cannot run here, or null.</summary>
    public static string? WhyUnavailable(bool wgQuick) =>
        NetworkLab.WhyUnavailable()
        ?? (File.Exists("/dev/net/tun") ? null : "/dev/net/tun is missing")
        ?? (File.Exists(Daemon) ? null : $"the wireguard-salvo apphost is not at {Daemon}")
        ?? (!wgQuick ? null
            : new[] { "wg", "wg-quick", "wireguard-go", "ping", "iperf3", "nft" }.FirstOrDefault(tool => ExternalTool.Find(tool) is null) is { } missing
                ? $"{missing} is not installed (apt-get install wireguard-tools wireguard-go iputils-ping iperf3 nftables)"
                : null);

    /// <summary>A new interface name, unique to this process: <c>sq</c>, a letter, the PID and a count.</summary>
    public static string NewInterfaceName(char role) =>
        $"sq{role}{Environment.ProcessId}{Interlocked.Increment(ref s_next)}";

    public static string SocketPath(string interfaceName) => $"/var/run/wireguard/{interfaceName}.sock";

    /// <summary>Runs <paramref name="command"/> in <paramref name="host"/> (ip netns exec); returns the exit code and both outputs.</summary>
    public static (int ExitCode, string Output, string Error) InHost(string host, params string[] command) =>
        ExternalTool.RunAllowingFailure("ip", ["netns", "exec", host, .. command], timeoutMilliseconds: 60_000);

    /// <summary>Whether <paramref name="interfaceName"/> exists in <paramref name="host"/>.</summary>
    public static bool HasInterface(string host, string interfaceName) =>
        ExternalTool.RunAllowingFailure("ip", ["-n", host, "link", "show", "dev", interfaceName]).ExitCode == 0;

    /// <summary>The PID of the process serving <paramref name="interfaceName"/> (its command line ends "-f NAME" or "--foreground NAME"), or null.</summary>
    public static int? DaemonProcessId(string interfaceName)
    {
        foreach (var folder in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(folder), NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
            {
                continue;
            }

            try
            {
                var arguments = File.ReadAllText(Path.Combine(folder, "cmdline")).Split('\0', StringSplitOptions.RemoveEmptyEntries);
                if (arguments is [.., "-f" or "--foreground", var name] && name == interfaceName)
                {
                    return pid;
                }
            }
            catch (IOException)
            {
                // It ended while being read.
            }
        }

        return null;
    }

    /// <summary>
    /// Waits up to 10 s for process <paramref name="pid"/> to end; true once it has (gone, or a zombie: its parent,
    /// the detaching salvo, exited long ago and only the reaper's wait is left).
    /// </summary>
    public static bool WaitForExit(int pid) => WaitFor(() =>
    {
        try
        {
            var stat = File.ReadAllText($"/proc/{pid}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..].StartsWith('Z');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return true;
        }
    });

    /// <summary>Polls <paramref name="condition"/> every 100 ms for up to 10 s.</summary>
    public static bool WaitFor(Func<bool> condition)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(10))
        {
            if (condition())
            {
                return true;
            }

            Thread.Sleep(100);
        }

        return condition();
    }
}
