using System.Diagnostics;
using Salvo.Perf.Tests.Iperf3;
using Salvo.Tests.Lab;
using Salvo.Tunnel;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>
/// SIGTERM (and SIGHUP) for real, sent by PID to a salvo child process: every long-running command stops on it as
/// on Ctrl+C, finishing or cutting short what runs, printing its totals and removing what it created. Before, the
/// runtime's default ended the process at once with 143 and nothing printed.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class StopSignalTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [RequiresTheory(Requirement.Linux)]
    [InlineData("TERM", 143, "SIGTERM")]
    [InlineData("HUP", 129, "SIGHUP")]
    public void Server_SignalWhileListening_PrintsTotalsAndExitsWith128PlusTheSignal(string signal, int exitCode, string name)
    {
        using var child = SalvoChild.Start(["server", "-p", "0", "-i", "0"]);
        child.Output.WaitFor("listening on", Bound);

        var output = Stop(child, signal, exitCode);

        Assert.Contains("server total: 0 test(s) (0 salvo, 0 iperf3), 0 cut short by the server stopping", output, StringComparison.Ordinal);
        Assert.Contains($"salvo: cancelled ({name})", output, StringComparison.Ordinal);
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task Server_SigtermDuringStockIperf3Test_ClientReportsTheServerTerminatedAndTotalsArePrinted()
    {
        using var child = SalvoChild.Start(["server", "-p", "0", "-i", "1"]);
        var port = Listening.Port(child.Output.WaitFor("listening on", Bound));
        using var iperf3 = Iperf3Binary.Start("-u", "-c", "127.0.0.1", "-p", port, "-t", "30", "-b", "1M", "-i", "1");
        var iperf3Output = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(iperf3.StandardOutput);
        var iperf3Error = Salvo.Tests.Lab.ProcessOutput.ReadToEndOnOwnThread(iperf3.StandardError);
        try
        {
            child.Output.WaitFor("[SUM]", Bound); // an interval line: the streams are up and the test runs

            var output = Stop(child, "TERM", 143);

            Assert.True(iperf3.WaitForExit(Bound), "the stock client did not end after the server stopped");
            var said = await iperf3Output + await iperf3Error;
            Assert.Contains("the server has terminated", said, StringComparison.Ordinal);
            Assert.DoesNotContain("control socket has closed unexpectedly", said, StringComparison.Ordinal);
            Assert.Matches(@"cut short after \d+\.\d s: the server is stopping", output);
            Assert.Contains("server total: 1 test(s) (0 salvo, 1 iperf3), 1 cut short by the server stopping", output, StringComparison.Ordinal);
        }
        finally
        {
            if (!iperf3.HasExited)
            {
                iperf3.Kill();
            }
        }
    }

    [RequiresFact(Requirement.Linux)]
    public void Server_SigtermDuringSalvoTest_ClientPrintsWhyItEnded()
    {
        using var server = SalvoChild.Start(["server", "-p", "0", "-i", "0"]);
        var port = Listening.Port(server.Output.WaitFor("listening on", Bound));
        using var client = SalvoChild.Start(["client", "127.0.0.1", "-p", port, "-t", "60", "-b", "1M", "-i", "0"]);
        client.Output.WaitFor("Connected to", Bound); // the server has answered ready: the test runs

        var output = Stop(server, "TERM", 143);

        Assert.True(client.Process.WaitForExit(Bound), $"the client did not end: {client.Output.Text}");
        client.Process.WaitForExit();
        Assert.Equal(1, client.Process.ExitCode);
        Assert.True(client.Output.Text.Contains("salvo: error: the server stopped the test: the server is stopping; the test was cut short", StringComparison.Ordinal),
            $"client: {client.Output.Text}; server: {output}");
        Assert.Contains("server total: 1 test(s) (1 salvo, 0 iperf3), 1 cut short by the server stopping", output, StringComparison.Ordinal);
    }

    /// <summary>For these a signal is the usual way to end: they print their report and exit 0.</summary>
    [RequiresTheory(Requirement.Linux)]
    [InlineData("listening on", "echo total:", "server", "--echo", "-p", "0", "-i", "0")]
    [InlineData("salvo impair relaying", "client address(es)", "impair", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9", "-t", "600")]
    [InlineData("listening on", "UDP: 0 message(s) received", "transport", "--listen", "127.0.0.1:0", "-t", "600")]
    public void Service_Sigterm_PrintsItsReportAndExitsZero(string started, string report, params string[] args)
    {
        using var child = SalvoChild.Start(args);
        child.Output.WaitFor(started, Bound);

        Assert.Contains(report, Stop(child, "TERM", 0), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public void Soak_Sigterm_JudgesWhatWasSampledAndExitsZero()
    {
        using var child = SalvoChild.Start(["soak", "-t", "600", "-r", "200", "-c", "1"]);
        child.Output.WaitFor("after gc", Bound);

        var output = Stop(child, "TERM", 0);

        Assert.Contains("Load: ", output, StringComparison.Ordinal);
        Assert.Contains("Verdict: too short to judge growth", output, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public void Loopback_Sigterm_PrintsThePointsMeasuredAndExitsWith143()
    {
        using var child = SalvoChild.Start(["loopback", "-m", "socket", "-l", "64", "-t", "0.5", "--warmup", "0", "--repeat", "100", "--no-pin"]);
        child.Output.WaitFor("[  1/100]", Bound);

        var output = Stop(child, "TERM", 143);

        Assert.Contains("salvo loopback: stopped after ", output, StringComparison.Ordinal);
        Assert.Contains("received dgram/s", output, StringComparison.Ordinal);
        Assert.Contains("salvo: cancelled (SIGTERM)", output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--rate", "0")]
    [InlineData("--rate", "2000")]
    public void Rr_SigtermWhileItsThreadsWaitInReceive_ExitsWith143(string option, string value)
    {
        // The stop used to dispose the client sockets under threads blocked in their receive: the thread's
        // ObjectDisposedException ended the process with SIGABRT (exit 134) instead.
        using var child = SalvoChild.Start(["rr", "-t", "30", "--warmup-jit-idle", "0.2", option, value]);
        child.Output.WaitFor("salvo rr: measuring", Bound);

        var output = Stop(child, "TERM", 143);

        Assert.Contains("salvo: cancelled (SIGTERM)", output, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", output, StringComparison.Ordinal);
    }

    /// <summary>
    /// In a namespace of its own, so the interface and its route touch nothing of the host's. The deprecated 'salvo tunnel
    /// up' hands its process over to the daemon's program: it names wireguard-salvo once and still ends on salvo's signal.
    /// </summary>
    [RequiresFact(Requirement.Netns)]
    public void TunnelUp_Sigterm_RemovesTheInterfaceRoutesAndStatusFileAndExitsZero()
    {
        using var lab = new NetworkLab();
        var name = $"slvst{Environment.ProcessId % 10_000}";
        var folder = Directory.CreateTempSubdirectory("salvo-stop-").FullName;
        try
        {
            var config = Path.Combine(folder, "tunnel.conf");
            File.WriteAllText(config, $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\nAddress = 198.19.77.1/24\n\n[Peer]\n" +
                $"PublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.78.0/24\n");
            using var child = SalvoChild.Start(["tunnel", "up", config, "--name", name], wrapper: ["ip", "netns", "exec", lab.HostA]);
            child.Output.WaitFor($"wireguard-salvo: {name} up", Bound);
            Assert.Contains("'salvo tunnel up' is deprecated and will be removed: use 'wireguard-salvo up'", child.Output.Text, StringComparison.Ordinal);
            Assert.Contains("198.19.78.0/24", Run("ip", "-n", lab.HostA, "route", "show", "dev", name).Output, StringComparison.Ordinal);
            var status = Path.Combine("/run/salvo-tunnel", name);
            Assert.True(Eventually.True(() => File.Exists(status), Bound), "no status file");

            var output = Stop(child, "TERM", 0);

            Assert.Contains($"wireguard-salvo: {name} down after", output, StringComparison.Ordinal);
            Assert.Contains("0 B received, 0 B sent, no handshake", output, StringComparison.Ordinal);
            Assert.NotEqual(0, Run("ip", "-n", lab.HostA, "link", "show", name).Exit);
            Assert.Empty(Run("ip", "-n", lab.HostA, "route", "show", "198.19.78.0/24").Output.Trim());
            Assert.False(File.Exists(status));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// The deprecated 'salvo tunnel userspace -f' is the daemon's own program once it runs (the process salvo started as
    /// now runs wireguard-salvo; before, salvo's own dll ran the daemon's code), and SIGTERM sent to salvo's process
    /// id reaches it: it takes the interface down, removes its control socket and exits 0. In a namespace of its own.
    /// </summary>
    [RequiresFact(Requirement.Netns)]
    public void TunnelUserspaceForeground_Sigterm_ReachesTheDaemonWhichRemovesTheInterfaceAndSocket()
    {
        using var lab = new NetworkLab();
        var name = $"slvus{Environment.ProcessId % 10_000}";
        var socket = $"/var/run/wireguard/{name}.sock";
        using var child = SalvoChild.Start(["tunnel", "userspace", "-f", name], wrapper: ["ip", "netns", "exec", lab.HostA]);
        child.Output.WaitFor($"wireguard-salvo: {name} up", Bound);
        Assert.Contains("'salvo tunnel userspace' is deprecated and will be removed: use 'wireguard-salvo [-f] IFACE'", child.Output.Text, StringComparison.Ordinal);
        var commandLine = File.ReadAllText($"/proc/{child.Process.Id}/cmdline").Split('\0');
        Assert.Contains(commandLine, part => Path.GetFileName(part) is "wireguard-salvo" or "wireguard-salvo.dll");
        Assert.DoesNotContain(commandLine, part => part.EndsWith("Salvo.Perf.dll", StringComparison.Ordinal));
        Assert.Equal(0, Run("ip", "-n", lab.HostA, "link", "show", name).Exit);
        Assert.True(File.Exists(socket), "no control socket");

        var output = Stop(child, "TERM", 0);

        Assert.Contains($"wireguard-salvo: {name} down (stop signal); control socket removed", output, StringComparison.Ordinal);
        Assert.NotEqual(0, Run("ip", "-n", lab.HostA, "link", "show", name).Exit);
        Assert.False(File.Exists(socket));
    }

    /// <summary>
    /// Ctrl+C in a terminal sends SIGINT to the whole foreground process group. 'salvo tunnel userspace -f' is one
    /// process, the daemon in salvo's place, so the daemon hears it once and takes its interface down; a daemon run as
    /// salvo's child would hear it from the terminal and again from salvo, and a second signal ends it at once. The
    /// group here is a session of the test's own (setsid), in a namespace of its own.
    /// </summary>
    [RequiresFact(Requirement.Netns, Tools = ["setsid"])]
    public void TunnelUserspaceForeground_SigintToItsProcessGroup_TheDaemonStopsCleanlyOnce()
    {
        using var lab = new NetworkLab();
        var name = $"slvug{Environment.ProcessId % 10_000}";
        var socket = $"/var/run/wireguard/{name}.sock";
        using var child = SalvoChild.Start(["tunnel", "userspace", "-f", name], interruptible: true, wrapper: ["ip", "netns", "exec", lab.HostA, "setsid"]);
        child.Output.WaitFor($"wireguard-salvo: {name} up", Bound);
        var group = Run("ps", "-o", "pgid=", "-p", child.Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)).Output.Trim();
        Assert.Equal(child.Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), group);

        Assert.Equal(0, Run("kill", "-s", "INT", "--", "-" + group).Exit);

        Assert.True(child.Process.WaitForExit(Bound), $"it did not end on SIGINT: {child.Output.Text}");
        child.Process.WaitForExit();
        Assert.True(child.Process.ExitCode == 0, $"exit code {child.Process.ExitCode}: {child.Output.Text}");
        Assert.Contains($"wireguard-salvo: {name} down (stop signal); control socket removed", child.Output.Text, StringComparison.Ordinal);
        Assert.NotEqual(0, Run("ip", "-n", lab.HostA, "link", "show", name).Exit);
        Assert.False(File.Exists(socket));
    }

    /// <summary>Sends the signal, waits (bounded) for the exit code and returns all the child printed.</summary>
    private static string Stop(SalvoChild child, string signal, int exitCode)
    {
        child.Signal(signal);
        Assert.True(child.Process.WaitForExit(Bound), $"it did not end on SIG{signal}: {child.Output.Text}");
        child.Process.WaitForExit(); // flushes the output readers
        Assert.True(exitCode == child.Process.ExitCode, $"exit code {child.Process.ExitCode}, expected {exitCode}: {child.Output.Text}");
        return child.Output.Text;
    }

    private static (int Exit, string Output) Run(string file, params string[] args)
    {
        var start = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEnd() + process.StandardError.ReadToEnd();
        Assert.True(process.WaitForExit(10_000), $"{file} did not end");
        return (process.ExitCode, output);
    }
}
