using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Salvo.Tests.Lab;

/// <summary>
/// Two hosts on one machine: network namespaces A and B joined by a veth pair with MTU 1500 and
/// addresses from the benchmarking range 198.18.0.0/15. Sockets for a host are created on a thread that
/// has entered its namespace (setns), and stay there whichever thread uses them later. Disposing removes
/// both namespaces, and a new lab first removes any left behind by a process that no longer runs.
/// </summary>
public sealed partial class NetworkLab : IDisposable
{
    public const string AddressA = "198.18.0.1";
    public const string AddressB = "198.18.0.2";
    private const string Prefix = "salvo-lab-";
    private const int CloneNewNet = 0x40000000;

    public NetworkLab(int mtu = 1500)
    {
        ThreadPoolFloor.Raise();
        RemoveStaleNamespaces();
        var tag = $"{Environment.ProcessId}-{Interlocked.Increment(ref s_next)}";
        HostA = $"{Prefix}{tag}-a";
        HostB = $"{Prefix}{tag}-b";
        var vethA = LinkA = $"sv{tag}a";
        var vethB = LinkB = $"sv{tag}b";
        try
        {
            Ip($"netns add {HostA}");
            Ip($"netns add {HostB}");
            Ip($"link add {vethA} mtu {mtu} type veth peer name {vethB} mtu {mtu}");
            Ip($"link set {vethA} netns {HostA}");
            Ip($"link set {vethB} netns {HostB}");
            Ip($"-n {HostA} addr add {AddressA}/24 dev {vethA}");
            Ip($"-n {HostB} addr add {AddressB}/24 dev {vethB}");
            Ip($"-n {HostA} link set {vethA} up");
            Ip($"-n {HostB} link set {vethB} up");
            Ip($"-n {HostA} link set lo up");
            Ip($"-n {HostB} link set lo up");
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    private static int s_next;

    public string HostA { get; }

    public string HostB { get; }

    /// <summary>Host A's end of the veth pair (inside <see cref="HostA"/>).</summary>
    public string LinkA { get; }

    /// <summary>Host B's end of the veth pair (inside <see cref="HostB"/>).</summary>
    public string LinkB { get; }

    /// <summary>Whether this process can build the lab: Linux, root, and the ip tool.</summary>
    public static string? WhyUnavailable()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "the lab needs Linux network namespaces";
        }

        if (Environment.UserName != "root")
        {
            return "the lab needs root to create network namespaces (CI runs as root)";
        }

        return File.Exists("/usr/sbin/ip") || File.Exists("/sbin/ip") || File.Exists("/usr/bin/ip") ? null : "the ip tool (iproute2) is not installed";
    }

    /// <summary>Whether nftables is available for loss rules.</summary>
    public static bool HasNftables => File.Exists("/usr/sbin/nft") || File.Exists("/sbin/nft");

    /// <summary>Runs <paramref name="create"/> on a thread inside <paramref name="host"/>'s namespace.</summary>
    public static T InHost<T>(string host, Func<T> create)
    {
        T? result = default;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                using var handle = File.OpenHandle($"/var/run/netns/{host}");
                if (SetNs((int)handle.DangerousGetHandle(), CloneNewNet) != 0)
                {
                    throw new InvalidOperationException($"setns into {host} failed: errno {Marshal.GetLastPInvokeError()}");
                }

                result = create();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            throw new InvalidOperationException($"Creating in {host} failed: {failure.Message}", failure);
        }

        return result!;
    }

    /// <summary>Runs a command inside a host's namespace (ip netns exec) and returns its output.</summary>
    public static string Exec(string host, string command, string arguments) =>
        Run("ip", $"netns exec {host} {command} {arguments}");

    public void Dispose()
    {
        foreach (var host in new[] { HostA, HostB })
        {
            if (host is not null)
            {
                TryRun("ip", $"netns del {host}");
            }
        }
    }

    private static void Ip(string arguments) => Run("ip", arguments);

    private static void RemoveStaleNamespaces()
    {
        foreach (var line in TryRun("ip", "netns list").Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            var name = line.Split(' ')[0];
            if (!name.StartsWith(Prefix, StringComparison.Ordinal))
            {
                continue;
            }

            var pid = name[Prefix.Length..].Split('-')[0];
            if (int.TryParse(pid, out var owner) && owner != Environment.ProcessId && !Directory.Exists($"/proc/{owner}"))
            {
                TryRun("ip", $"netns del {name}");
            }
        }
    }

    private static string TryRun(string file, string arguments)
    {
        try
        {
            return Run(file, arguments);
        }
        catch (InvalidOperationException)
        {
            return string.Empty;
        }
    }

    private static string Run(string file, string arguments)
    {
        using var process = Process.Start(new ProcessStartInfo(file, arguments)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        }) ?? throw new InvalidOperationException($"could not start {file}");
        // Both at once: a tool that fills the stderr pipe while stdout is read would otherwise never finish.
        var output = ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        var error = ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        if (!process.WaitForExit(30_000))
        {
            process.Kill();
            throw new InvalidOperationException($"{file} {arguments} did not finish");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{file} {arguments} failed ({process.ExitCode}): {error.Result.Trim()}");
        }

        return output.Result;
    }

    [LibraryImport("libc.so.6", EntryPoint = "setns", SetLastError = true)]
    private static partial int SetNs(int fd, int nstype);
}
