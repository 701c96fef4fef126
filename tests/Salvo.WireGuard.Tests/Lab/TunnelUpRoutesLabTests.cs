using Salvo.Perf.Tests.Reliability;
using Salvo.Tests.Lab;
using Salvo.Tunnel;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>wireguard-salvo up</c> and the host's own routes, in a lab namespace: a prefix the host routes already is refused
/// before anything is made and its route stays; a normal run takes away exactly the routes it added.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class TunnelUpRoutesLabTests : IDisposable
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(90);
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-routes-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    /// <summary>The case that broke a host: the underlay's own subnet in AllowedIPs. wg-quick stops with "File exists".</summary>
    [RequiresFact(Requirement.Netns)]
    public void Up_AllowedIpsHoldTheUnderlaySubnet_IsRefusedNamingTheRouteAndLeavesItAlone()
    {
        using var lab = new NetworkLab();
        var name = $"sr{Environment.ProcessId % 100_000}a";
        var before = Routes(lab);

        // -t 10: the old code took the route over and ran; this run must end at once, refused.
        using var salvo = Up(lab, name, "Address = 198.19.77.1/24", "AllowedIPs = 198.19.78.0/24, 198.18.0.0/24", "-t", "10");

        Assert.True(salvo.Process.WaitForExit(s_wait), "salvo did not end");
        Assert.NotEqual(0, salvo.Process.ExitCode);
        Assert.Contains($"AllowedIPs 198.18.0.0/24 is routed already: 198.18.0.0/24 dev {lab.InterfaceA} table main proto kernel", salvo.Output.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("198.19.78.0/24", salvo.Output.Text, StringComparison.Ordinal);
        Assert.Equal(before, Routes(lab));
        Assert.Contains($"198.18.0.0/24 dev {lab.InterfaceA} proto kernel", before, StringComparison.Ordinal);
        Assert.DoesNotContain(name, NetworkLab.Exec(lab.HostA, "ip", "-o link show"), StringComparison.Ordinal);
        Assert.False(File.Exists($"/var/run/wireguard/{name}.sock"), "the wg control socket was left behind");
    }

    [RequiresFact(Requirement.Netns)]
    public void Up_TableNumberHoldsTheDefaultRoute_IsRefusedNamingItsTypeAndTable()
    {
        using var lab = new NetworkLab();
        var name = $"sr{Environment.ProcessId % 100_000}b";
        NetworkLab.Exec(lab.HostA, "ip", "route add blackhole default table 51777");

        using var salvo = Up(lab, name, "Table = 51777", "AllowedIPs = 0.0.0.0/0", "-t", "10");

        Assert.True(salvo.Process.WaitForExit(s_wait), "salvo did not end");
        Assert.NotEqual(0, salvo.Process.ExitCode);
        Assert.Contains("AllowedIPs 0.0.0.0/0 is routed already: blackhole 0.0.0.0/0 table 51777", salvo.Output.Text, StringComparison.Ordinal);
        Assert.Contains("blackhole default", NetworkLab.Exec(lab.HostA, "ip", "route show table 51777"), StringComparison.Ordinal);
    }

    /// <summary>
    /// Its own Address's subnet is in AllowedIPs too (the kernel routes it once the address is added, so it is not added
    /// again), and an unrelated route through the underlay is there before and after.
    /// </summary>
    [RequiresFact(Requirement.Netns)]
    public void Up_NormalRun_RoutesItsPrefixesAndTakesAwayExactlyThose()
    {
        using var lab = new NetworkLab();
        var name = $"sr{Environment.ProcessId % 100_000}c";
        NetworkLab.Exec(lab.HostA, "ip", $"route add 198.19.200.0/24 dev {lab.InterfaceA}");
        var before = Routes(lab);

        using var salvo = Up(lab, name, "Address = 198.19.77.1/24, fd00:5a2::1/64", "AllowedIPs = 198.19.77.0/24, 198.19.78.0/24, fd00:5a3::/64", "-t", "60");
        salvo.Output.WaitFor($"wireguard-salvo: {name} up in", s_wait);

        var up = NetworkLab.Exec(lab.HostA, "ip", $"route show dev {name}") + NetworkLab.Exec(lab.HostA, "ip", $"-6 route show dev {name}");
        Assert.Contains("198.19.77.0/24", up, StringComparison.Ordinal);
        Assert.Contains("198.19.78.0/24", up, StringComparison.Ordinal);
        Assert.Contains("fd00:5a3::/64", up, StringComparison.Ordinal);
        Assert.Contains(" s, 2 routes ", salvo.Output.Text, StringComparison.Ordinal);
        salvo.Signal("TERM");
        Assert.True(salvo.Process.WaitForExit(s_wait), "salvo did not end after SIGTERM");
        Assert.Equal(0, salvo.Process.ExitCode);
        Assert.Equal(before, Routes(lab));
        Assert.Contains($"198.19.200.0/24 dev {lab.InterfaceA}", before, StringComparison.Ordinal);
    }

    /// <summary>
    /// Every route of both families in every table of host A, as 'ip route show table all' lists them, but the link-local
    /// ones: the kernel adds those for the lab's veth on its own time after the link comes up.
    /// </summary>
    private static string Routes(NetworkLab lab) =>
        string.Join('\n', (NetworkLab.Exec(lab.HostA, "ip", "-4 route show table all") + NetworkLab.Exec(lab.HostA, "ip", "-6 route show table all"))
            .Split('\n').Where(line => !line.Contains("fe80:", StringComparison.Ordinal)));

    private SalvoChild Up(NetworkLab lab, string name, string interfaceLine, string peerLine, params string[] options)
    {
        var config = Path.Combine(_folder, $"{name}.conf");
        File.WriteAllText(config,
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\n{interfaceLine}\n\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\n{peerLine}\nEndpoint = {NetworkLab.AddressB}:51820\n");
        return DaemonChild.Start(["up", config, .. options], wrapper: ["ip", "netns", "exec", lab.HostA]);
    }
}
