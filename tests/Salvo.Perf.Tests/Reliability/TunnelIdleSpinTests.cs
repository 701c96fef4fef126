using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Salvo.Tests.Lab;
using Salvo.Tunnel;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>
/// A running tunnel's thread pool does not spin: with no data to carry, its workers make next to no sched_yield(2)
/// call. Before, each pool work item (the status file each second, timers) woke a worker that spun with sched_yield
/// before it slept: about 1,000 calls a second from an idle 'salvo tunnel up', and 0.006 a data packet on each end
/// under load. Counted with strace on every thread of the tunnel process, by its PID, in a namespace of the test's own.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed partial class TunnelIdleSpinTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    /// <summary>The deprecated 'salvo tunnel up' (which hands its process over to the daemon's program) and the daemon itself.</summary>
    [RequiresTheory(Requirement.Netns, Tools = ["strace"])]
    [InlineData("Salvo.Perf.dll", "tunnel", "up")]
    [InlineData("wireguard-salvo.dll", "up", null)]
    public void IdleTunnel_PoolWorkersDoNotSpin(string dll, string command, string? subcommand)
    {
        using var lab = new NetworkLab();
        var name = $"slvsp{Environment.ProcessId % 10_000}";
        var folder = Directory.CreateTempSubdirectory("salvo-spin-").FullName;
        try
        {
            var config = Path.Combine(folder, "tunnel.conf");
            File.WriteAllText(config, $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\nAddress = 198.19.79.1/24\n\n[Peer]\n" +
                $"PublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.80.0/24\n");
            string[] args = [command, .. subcommand is null ? Array.Empty<string>() : [subcommand], config, "--name", name];
            using var child = SalvoChild.StartDll(Path.Combine(AppContext.BaseDirectory, dll), args, wrapper: ["ip", "netns", "exec", lab.HostA]);
            child.Output.WaitFor($"wireguard-salvo: {name} up", Bound);

            // Three seconds: three status writes at least, each a pool work item that woke a spinning worker before.
            var calls = SchedYieldCallsByThread(child.Process.Id, seconds: 3);

            // The pool's workers made thousands here before (2,974 in 3 s on the build machine); a worker can still
            // yield in a rare wait of its own, so a few are allowed. The JIT's tiering thread yields while it
            // recompiles hot methods in the first minute, which is not the pool's spin and is not counted.
            var fromPool = calls.Where(call => call.Key.StartsWith(".NET TP Worker", StringComparison.Ordinal)).Sum(call => call.Value);
            Assert.True(fromPool < 30, $"{fromPool} sched_yield calls in 3 s from an idle tunnel's pool workers ({string.Join(", ", calls)})");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>sched_yield calls of each thread of <paramref name="pid"/> over <paramref name="seconds"/>, by thread name, from strace -f (stopped by SIGINT).</summary>
    private static Dictionary<string, int> SchedYieldCallsByThread(int pid, int seconds)
    {
        var start = new ProcessStartInfo("timeout")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in (string[])["-s", "INT", seconds.ToString(CultureInfo.InvariantCulture), "strace", "-f", "-e", "trace=sched_yield", "-p", pid.ToString(CultureInfo.InvariantCulture)])
        {
            start.ArgumentList.Add(arg);
        }

        using var strace = Process.Start(start)!;
        var error = strace.StandardError.ReadToEndAsync();
        _ = strace.StandardOutput.ReadToEnd();
        Assert.True(strace.WaitForExit((seconds + 30) * 1_000), "strace did not end");
        var trace = error.GetAwaiter().GetResult();
        Assert.Contains("attached", trace, StringComparison.Ordinal);

        // Each call is a line "[pid TID] sched_yield() = 0" (the process's first thread's have no prefix); the threads
        // still run, so their names are read after.
        var calls = new Dictionary<string, int>();
        foreach (Match call in SchedYieldLine().Matches(trace))
        {
            var thread = call.Groups["tid"].Success ? call.Groups["tid"].Value : pid.ToString(CultureInfo.InvariantCulture);
            var comm = $"/proc/{pid}/task/{thread}/comm";
            var name = File.Exists(comm) ? File.ReadAllText(comm).Trim() : $"thread {thread}";
            calls[name] = calls.GetValueOrDefault(name) + 1;
        }

        return calls;
    }

    [GeneratedRegex(@"^(?:\[pid\s+(?<tid>\d+)\]\s+)?sched_yield\(", RegexOptions.Multiline)]
    private static partial Regex SchedYieldLine();
}
