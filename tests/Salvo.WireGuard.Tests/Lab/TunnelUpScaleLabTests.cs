using System.Diagnostics;
using Salvo.Tests.Lab;
using Salvo.Tunnel;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>wireguard-salvo up</c> with thousands of peers, as a child process inside a lab namespace: every AllowedIPs route
/// installed, and -t and SIGTERM honoured while it starts.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class TunnelUpScaleLabTests : IDisposable
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(90);
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-peers-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [RequiresFact(Requirement.Netns)]
    public void Up_FiveThousandPeers_EveryAllowedIpsRouteThroughTheInterface()
    {
        using var lab = new NetworkLab();
        var name = $"sp{Environment.ProcessId % 100_000}";
        using var salvo = DaemonChild.Start(["up", Config(5_000), "--name", name, "-t", "120"], wrapper: ["ip", "netns", "exec", lab.HostA]);

        salvo.Output.WaitFor($"wireguard-salvo: {name} up in", s_wait);

        // One /32 and one /128 per peer, besides the kernel's routes for the interface's own addresses.
        static bool PeerRoute(string line, string start) =>
            line.StartsWith(start, StringComparison.Ordinal) && !line.Contains('/', StringComparison.Ordinal) && !line.Contains("proto kernel", StringComparison.Ordinal);
        var v4 = NetworkLab.Exec(lab.HostA, "ip", $"-4 route show dev {name}").Split('\n').Count(line => PeerRoute(line, "198."));
        var v6 = NetworkLab.Exec(lab.HostA, "ip", $"-6 route show dev {name}").Split('\n').Count(line => PeerRoute(line, "fd00:5a1::"));
        Assert.Equal((5_000, 5_000), (v4, v6));
        salvo.Signal("TERM");
        Assert.True(salvo.Process.WaitForExit(s_wait), "salvo did not end after SIGTERM");
        Assert.Equal(0, salvo.Process.ExitCode);
    }

    [RequiresFact(Requirement.Netns)]
    public void Up_TimeEndsBeforeTheRoutesAreIn_StopsTheStartAndExitsZero()
    {
        using var lab = new NetworkLab();
        var name = $"sq{Environment.ProcessId % 100_000}";
        var clock = Stopwatch.StartNew();

        // -t 1 counts from the launch: with 10,000 peers the tunnel ends during its start, wherever it is by then.
        using var salvo = DaemonChild.Start(["up", Config(10_000), "--name", name, "-t", "1"], wrapper: ["ip", "netns", "exec", lab.HostA]);

        Assert.True(salvo.Process.WaitForExit(s_wait), $"salvo ran past -t 1 for {clock.Elapsed.TotalSeconds:F0} s: {salvo.Output.Text}");
        Assert.Equal(0, salvo.Process.ExitCode);
        // Down after its start, or stopped before the interface was made when reading the file took the whole second.
        Assert.Matches($"wireguard-salvo: ({name} down after|stopped after .* before {name} was created)", salvo.Output.Text);
    }

    private string Config(int peers)
    {
        var path = Path.Combine(_folder, $"peers{peers}.conf");
        File.WriteAllText(path, ManyPeers.Text(WireGuardKey.GeneratePrivateKey(), peers));
        return path;
    }
}
