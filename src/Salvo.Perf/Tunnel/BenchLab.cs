using System.Diagnostics;
using System.Globalization;
using Salvo.Perf.Cli;
using Salvo.Tunnel;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// Two network namespaces joined by a veth pair (198.18.0.1 and .2, MTU 1500) carrying six paths side by side: the
/// plain veth and the five <see cref="BenchTunnel"/>s (each end a 'salvo tunnel up' process or wireguard-go, MTU 1420),
/// with an iperf3 server in B. Disposing ends every process it started, by its own
/// handle, and removes both namespaces.
/// </summary>
internal sealed class BenchLab : IDisposable
{
    private const string Prefix = "salvo-bench-";

    private readonly List<(Process Process, string? StatusFile, System.Collections.Concurrent.ConcurrentQueue<string> Output)> _processes = [];
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-bench-").FullName;
    private readonly string _tag = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
    private readonly Dictionary<string, List<int>> _endProcesses = [];

    public BenchLab()
    {
        RemoveStale();
        HostA = $"{Prefix}{_tag}-a";
        HostB = $"{Prefix}{_tag}-b";
        try
        {
            BenchTools.Ip("netns", "add", HostA);
            BenchTools.Ip("netns", "add", HostB);
            BenchTools.Ip("link", "add", $"sbv{_tag}a", "mtu", "1500", "type", "veth", "peer", "name", $"sbv{_tag}b", "mtu", "1500");
            Underlay(HostA, $"sbv{_tag}a", "198.18.0.1/24");
            Underlay(HostB, $"sbv{_tag}b", "198.18.0.2/24");
            foreach (var tunnel in BenchTunnel.All)
            {
                StartTunnel(tunnel);
            }

            StartBackground(HostB, [BenchTools.Find("iperf3")!, "-s", "-p", "5201"], statusFile: null);
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    public string HostA { get; }

    public string HostB { get; }

    /// <summary>The plain veth, then each tunnel, with the address in B each one reaches.</summary>
    public static IReadOnlyList<(string Name, string Target)> Paths { get; } =
        [("veth", "198.18.0.2"), .. BenchTunnel.All.Select(t => (t.Name, t.Address(2)))];

    public void Dispose()
    {
        foreach (var (process, statusFile, _) in Enumerable.Reverse(_processes))
        {
            if (!process.HasExited)
            {
                process.Kill();
                process.WaitForExit(5_000);
            }

            process.Dispose();
            if (statusFile is not null)
            {
                File.Delete(statusFile);
            }
        }

        foreach (var host in new[] { HostA, HostB })
        {
            try
            {
                BenchTools.Ip("netns", "del", host);
            }
            catch (CliException)
            {
            }
        }

        Directory.Delete(_folder, recursive: true);
    }

    /// <summary>
    /// Removes what a bench that was killed left behind (its finally never ran): namespaces named after a process that
    /// no longer runs, the tunnel processes still inside them, and their status files.
    /// </summary>
    private static void RemoveStale()
    {
        foreach (var owner in StaleNamespaces.Remove(Prefix))
        {
            foreach (var device in BenchTunnel.All.SelectMany(t => t.SalvoDeviceNames(owner)))
            {
                File.Delete(Path.Combine(Salvo.WireGuard.UpCommand.StatusFolder, device));
            }
        }
    }

    private static void Underlay(string host, string device, string address)
    {
        BenchTools.Ip("link", "set", device, "netns", host);
        BenchTools.Ip("-n", host, "address", "add", address, "dev", device);
        BenchTools.Ip("-n", host, "link", "set", device, "up");
        BenchTools.Ip("-n", host, "link", "set", "lo", "up");
    }

    private void StartTunnel(BenchTunnel tunnel)
    {
        var keyA = WireGuardKey.GeneratePrivateKey();
        var keyB = WireGuardKey.GeneratePrivateKey();
        void StartA() => StartEnd(tunnel, tunnel.EndA, HostA, 'a', keyA, keyB.DerivePublicKey(), tunnel.Address(1), tunnel.Address(2), "198.18.0.2");
        void StartB() => StartEnd(tunnel, tunnel.EndB, HostB, 'b', keyB, keyA.DerivePublicKey(), tunnel.Address(2), tunnel.Address(1), "198.18.0.1");
        if (tunnel.OverTcp)
        {
            // A dials B's TCP listener at once; were B not up yet, the next attempt would come only 5 s later.
            StartB();
            StartA();
        }
        else
        {
            StartA();
            StartB();
        }
    }

    /// <summary>The process ids of the two ends of the tunnel named <paramref name="path"/>; none for the plain veth.</summary>
    public IReadOnlyList<int> ProcessIdsOf(string path) => _endProcesses.TryGetValue(path, out var ids) ? ids : [];

    private void StartEnd(BenchTunnel tunnel, TunnelEnd end, string host, char side, WireGuardKey key, WireGuardKey peer, string address, string peerAddress, string peerUnderlay)
    {
        // ip netns exec replaces itself with the command, so the started process is the tunnel end itself.
        if (!_endProcesses.TryGetValue(tunnel.Name, out var ids))
        {
            _endProcesses[tunnel.Name] = ids = [];
        }

        var name = tunnel.DeviceName(side, _tag);
        if (end == TunnelEnd.Salvo)
        {
            StartSalvoEnd(host, name, tunnel.Port, key, peer, address, peerAddress, peerUnderlay, tunnel.OverTcp && side == 'a' ? "only" : "auto");
        }
        else
        {
            StartWireGuardGoEnd(host, name, tunnel.Port, key, peer, address, peerAddress, peerUnderlay);
        }

        ids.Add(_processes.Single(p => p.Process.StartInfo.ArgumentList.Contains(name) || p.StatusFile?.EndsWith(name, StringComparison.Ordinal) == true).Process.Id);
    }

    private void StartSalvoEnd(string host, string name, int port, WireGuardKey key, WireGuardKey peer, string address, string peerAddress, string peerUnderlay, string tcpFallback)
    {
        var file = Path.Combine(_folder, name + ".conf");
        File.WriteAllText(file, $"""
            [Interface]
            PrivateKey = {key}
            ListenPort = {port}
            Address = {address}/24
            MTU = 1420

            [Peer]
            PublicKey = {peer}
            AllowedIPs = {peerAddress}/32
            Endpoint = {peerUnderlay}:{port}
            TcpFallback = {tcpFallback}
            """);
        StartBackground(host, [.. Salvo.WireGuard.DaemonExecutable.Command(), "up", file, "--name", name], Path.Combine(Salvo.WireGuard.UpCommand.StatusFolder, name));
        WaitFor(host, name, address);
    }

    private void StartWireGuardGoEnd(string host, string name, int port, WireGuardKey key, WireGuardKey peer, string address, string peerAddress, string peerUnderlay)
    {
        StartBackground(host, [BenchTools.Find("wireguard-go")!, "-f", name], statusFile: null);
        WaitFor(host, name, address: null);
        var file = Path.Combine(_folder, name + ".conf");
        File.WriteAllText(file, $"""
            [Interface]
            PrivateKey = {key}
            ListenPort = {port}

            [Peer]
            PublicKey = {peer}
            AllowedIPs = {peerAddress}/32
            Endpoint = {peerUnderlay}:{port}
            """);
        var (exitCode, output) = BenchTools.RunIn(host, "wg", ["setconf", name, file], timeoutSeconds: 10);
        if (exitCode != 0)
        {
            throw new CliException($"bench: wg setconf {name} failed: {output.Trim()}", CliException.FailureExitCode);
        }

        BenchTools.Ip("-n", host, "address", "add", address + "/24", "dev", name);
        BenchTools.Ip("-n", host, "link", "set", "dev", name, "mtu", "1420", "up");
    }

    private void StartBackground(string host, string[] command, string? statusFile)
    {
        var start = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in (string[])["netns", "exec", host, .. command])
        {
            start.ArgumentList.Add(argument);
        }

        // wireguard-go refuses to run on Linux without this, pointing at the kernel module instead.
        start.Environment["WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD"] = "1";
        var process = Process.Start(start) ?? throw new CliException($"bench: could not start {command[0]}", CliException.FailureExitCode);
        // Kept for the error message if the process fails to bring its device up; wireguard-go -f logs to stdout.
        var output = new System.Collections.Concurrent.ConcurrentQueue<string>();
        process.OutputDataReceived += (_, line) => Keep(output, line.Data);
        process.ErrorDataReceived += (_, line) => Keep(output, line.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        _processes.Add((process, statusFile, output));
    }

    /// <summary>Waits until <paramref name="device"/> exists in <paramref name="host"/> (with <paramref name="address"/> when given): 15 s at most.</summary>
    private void WaitFor(string host, string device, string? address)
    {
        for (var attempt = 0; attempt < 150; attempt++)
        {
            var (exitCode, output) = BenchTools.RunIn(host, "ip", ["address", "show", "dev", device], timeoutSeconds: 5);
            if (exitCode == 0 && (address is null || output.Contains(address + "/", StringComparison.Ordinal)))
            {
                return;
            }

            if (_processes[^1].Process.HasExited)
            {
                throw new CliException($"bench: the process making {device} in {host} exited ({_processes[^1].Process.ExitCode}): {LastOutput()}", CliException.FailureExitCode);
            }

            Thread.Sleep(100);
        }

        throw new CliException($"bench: {device} did not come up in {host} within 15 s: {LastOutput()}", CliException.FailureExitCode);
    }

    private static void Keep(System.Collections.Concurrent.ConcurrentQueue<string> output, string? line)
    {
        if (line is not null && output.Count < 50)
        {
            output.Enqueue(line);
        }
    }

    private string LastOutput() => string.Join(" | ", _processes[^1].Output);
}
