using System.Globalization;
using Salvo.Perf.Cli;
using Salvo.Perf.Platform;
using Salvo.Perf.Platform.Linux;
using Salvo.Tunnel;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// A <see cref="NamespaceLab"/> (198.18.0.1 and .2 on a veth pair, MTU 1500) carrying six paths side by side: the
/// plain veth and the five <see cref="BenchTunnel"/>s (each end a 'wireguard-salvo up' process or wireguard-go, MTU 1420),
/// with an iperf3 server in B. Disposing ends every process it started, by its own
/// handle, and removes both namespaces.
/// </summary>
internal sealed class BenchLab : IDisposable
{
    private const string Prefix = "salvo-bench-";

    /// <summary>Lines kept of a tunnel end's output for the error message when it fails to bring its device up.</summary>
    private const int LinesShown = 50;

    private readonly List<(ChildProcess Process, string? StatusFile)> _processes = [];
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-bench-").FullName;
    private readonly string _tag = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
    private readonly Dictionary<string, List<int>> _endProcesses = [];
    private readonly NamespaceLab _namespaces;

    public BenchLab()
    {
        _namespaces = new NamespaceLab(Prefix, "sbv");
        try
        {
            RemoveStaleStatusFiles(_namespaces.StaleOwners);
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

    public string HostA => _namespaces.HostA;

    public string HostB => _namespaces.HostB;

    /// <summary>The plain veth, then each tunnel, with the address in B each one reaches.</summary>
    public static IReadOnlyList<(string Name, string Target)> Paths { get; } =
        [("veth", "198.18.0.2"), .. BenchTunnel.All.Select(t => (t.Name, t.Address(2)))];

    public void Dispose()
    {
        foreach (var (process, statusFile) in Enumerable.Reverse(_processes))
        {
            process.Dispose();
            if (statusFile is not null)
            {
                File.Delete(statusFile);
            }
        }

        _namespaces.Dispose();
        Directory.Delete(_folder, recursive: true);
    }

    /// <summary>
    /// Removes the status files of the tunnel ends a bench that was killed left behind (its finally never ran); the
    /// namespace lab has removed its namespaces and the processes still inside them.
    /// </summary>
    private static void RemoveStaleStatusFiles(IReadOnlyList<string> owners)
    {
        foreach (var owner in owners)
        {
            foreach (var device in BenchTunnel.All.SelectMany(t => t.SalvoDeviceNames(owner)))
            {
                File.Delete(Path.Combine(DaemonProgram.StatusFolder, device));
            }
        }
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

        ids.Add(_processes.Single(p => p.Process.CommandLine.Contains(name) || p.StatusFile?.EndsWith(name, StringComparison.Ordinal) == true).Process.Id);
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
        StartBackground(host, [.. DaemonProgram.Command(), "up", file, "--name", name], Path.Combine(DaemonProgram.StatusFolder, name));
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
        // wireguard-go refuses to run on Linux without this, pointing at the kernel module instead.
        var environment = new Dictionary<string, string?> { ["WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD"] = "1" };
        var process = ChildProcess.Start(command[0], command[1..], new ChildProcessOptions { Namespace = host, Environment = environment });
        _processes.Add((process, statusFile));
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

    private string LastOutput() => _processes[^1].Process.LastLines(LinesShown);
}
