using System.Runtime.Versioning;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// Salvo against Salvo and against stock wireguard-go in both roles: the handshake completes, ping crosses both ways
/// without loss, and a two-second iperf3 TCP transfer goes through both ways with data in every second.
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed class InteropTests
{
    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void SalvoInitiator_WireGuardGoResponder_PingAndIperfBothWays()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.WireGuardGo);
        AssertCarriesTrafficBothWays(lab);
        Assert.True(lab.SalvoA!.Engine.Counters.HandshakesInitiated >= 1);
        AssertNothingRefused(lab.SalvoA);
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void WireGuardGoInitiator_SalvoResponder_PingAndIperfBothWays()
    {
        using var lab = new TunnelLab(TunnelEnd.WireGuardGo, TunnelEnd.Salvo);
        AssertCarriesTrafficBothWays(lab);
        Assert.True(lab.SalvoB!.Engine.Counters.HandshakesAnswered >= 1);
        // The responder starts no session of its own; the one initiation it may send is the TCP fallback's probe after
        // ProbeAfter of silence following a send (a loaded machine can delay wireguard-go's answer that long), at most
        // one per REKEY_TIMEOUT (5 s), and this test runs about 6 s.
        Assert.InRange(lab.SalvoB.Engine.Counters.HandshakesInitiated, 0, 2);
        AssertNothingRefused(lab.SalvoB);
    }

    [RequiresFact(Requirement.TunnelLab)]
    public void SalvoToSalvo_PingAndIperfBothWays()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        AssertCarriesTrafficBothWays(lab);
        Assert.Equal(lab.SalvoA!.Engine.Counters.HandshakesInitiated, lab.SalvoB!.Engine.Counters.HandshakesAnswered);
        Assert.True(lab.SalvoB.Engine.Counters.PacketsReceived > 1_000);
        AssertNothingRefused(lab.SalvoA);
        AssertNothingRefused(lab.SalvoB);
    }

    [RequiresFact(Requirement.TunnelLab)]
    [SupportedOSPlatform("linux")]
    public void SalvoToSalvo_WithOffloads_CutsAndJoinsSuperPacketsBothWays()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        AssertCarriesTrafficBothWays(lab);
        foreach (var end in new[] { lab.SalvoA!, lab.SalvoB! })
        {
            var tun = Assert.IsType<KernelTunDevice>(end.Tun);
            Assert.Contains("TSO4/6", tun.Offloads, StringComparison.Ordinal);
            Assert.True(tun.SuperPacketsRead > 0, "no TCP super-packet was read from the device and cut");
            Assert.True(tun.SuperPacketsWritten > 0, "no super-packet was joined and written to the device");
            Assert.Equal(0, tun.MalformedReads);
            Assert.Equal(0, end.TunWriteFailures);
            AssertNothingRefused(end);
        }
    }

    [RequiresFact(Requirement.TunnelLab)]
    [SupportedOSPlatform("linux")]
    public void SalvoToSalvo_WithoutOffloads_CarriesTrafficPacketByPacket()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo, offloads: false);
        AssertCarriesTrafficBothWays(lab);
        foreach (var end in new[] { lab.SalvoA!, lab.SalvoB! })
        {
            var tun = Assert.IsType<KernelTunDevice>(end.Tun);
            Assert.StartsWith("none", tun.Offloads, StringComparison.Ordinal);
            Assert.Equal(0, tun.SuperPacketsRead + tun.SuperPacketsWritten);
            Assert.Equal(0, end.TunWriteFailures);
            AssertNothingRefused(end);
        }
    }

    internal static void AssertCarriesTrafficBothWays(TunnelLab lab)
    {
        // The first ping waits for the handshake (its packet is staged, not lost); after it, none may be lost.
        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode);
        AssertNoLoss(TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 5));
        AssertNoLoss(TunnelLab.Ping(lab.HostB, TunnelLab.TunnelAddressA, count: 5));
        AssertEverySecondCarried(lab.Iperf(seconds: 2, reverse: false));
        AssertEverySecondCarried(lab.Iperf(seconds: 2, reverse: true));
    }

    internal static void AssertEverySecondCarried(IReadOnlyList<long> intervals)
    {
        Assert.NotEmpty(intervals);
        Assert.True(intervals.All(bytes => bytes > 0), $"an interval carried nothing: {TunnelLab.Describe(intervals)}");
    }

    /// <summary>
    /// No datagram from the peer was refused. Packets from the device may go unrouted: the kernel sends IPv6 router
    /// solicitations on any interface that comes up, and the tunnel routes only 198.19.0.0/24.
    /// </summary>
    internal static void AssertNothingRefused(TunnelDevice device)
    {
        var counters = device.Engine.Counters;
        var refused = Enum.GetValues<TunnelDropReason>().Where(r => r != TunnelDropReason.NoRoute && counters[r] > 0).Select(r => $"{r}={counters[r]}");
        Assert.Empty(refused);
    }

    internal static void AssertNoLoss((int ExitCode, string Output) ping)
    {
        Assert.True(ping.ExitCode == 0, ping.Output);
        Assert.True(ping.Output.Contains(" 0% packet loss", StringComparison.Ordinal), ping.Output);
    }
}
