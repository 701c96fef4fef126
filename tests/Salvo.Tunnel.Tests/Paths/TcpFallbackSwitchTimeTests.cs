using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Paths;

/// <summary>
/// The default timers of the TCP fallback, on the fake clock in 100 ms ticks: a blocked UDP path is left, and a cleared
/// one taken back, well inside a second, and one lost probe does not move a path that works.
/// </summary>
public sealed class TcpFallbackSwitchTimeTests
{
    private static readonly TcpFallbackOptions Defaults = new();

    [Fact]
    public void Defaults_UdpBlockedWhileSending_DialsWithinSevenHundredMilliseconds()
    {
        using var pair = new FallbackPair(timers: Defaults);
        pair.Connect();
        pair.UdpBlocked = true;

        // 200 ms of silence, the probe on the next tick, its repeat 200 ms later, the dial 300 ms after the probe.
        pair.Run(TimeSpan.FromSeconds(0.7), () => pair.AliceSends());

        Assert.Single(pair.AliceConnector.Dials);
        pair.OpenTcp();
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from UDP to TCP: no authenticated UDP datagram for"));
    }

    [Fact]
    public void Defaults_OnTcpForSeconds_UdpClears_BothBackOnUdpWithinEightHundredMilliseconds()
    {
        using var pair = new FallbackPair(timers: Defaults);
        pair.Connect();
        pair.UdpBlocked = true;
        pair.Run(TimeSpan.FromSeconds(0.7), () => pair.AliceSends());
        pair.OpenTcp();
        pair.Run(TimeSpan.FromSeconds(4), () =>
        {
            pair.AliceSends();
            pair.BobSends();
        });
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);

        pair.UdpBlocked = false;
        // The probes stay at most 500 ms (+ 20 % jitter) apart however long the outage, so one goes out within 0.6 s.
        pair.Run(TimeSpan.FromSeconds(0.8), () =>
        {
            pair.AliceSends();
            pair.BobSends();
        });

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(TunnelPath.Udp, pair.BobPath);
        Assert.Equal(1, pair.Alice.Counters.PathSwitchesToUdp);
    }

    [Fact]
    public void Defaults_UdpBlockedFromTheStart_TheHandshakeOverTcpTakesASecond_TheUdpProbesWaitAndTheSessionComesUp()
    {
        using var pair = new FallbackPair(timers: Defaults);
        pair.UdpBlocked = true;
        pair.AliceSends();
        pair.Run(TimeSpan.FromSeconds(0.7));
        Assert.Single(pair.AliceConnector.Dials);

        // A slow connection (a loaded machine): the initiation over TCP is answered a second later, when UDP probes,
        // 250 to 500 ms apart, would each have replaced it (its response then refused, and no retransmission while
        // they go on).
        pair.TcpHeld = true;
        pair.OpenTcp();
        pair.Run(TimeSpan.FromSeconds(1));
        pair.ReleaseTcp();
        pair.Run(TimeSpan.FromSeconds(0.2));

        Assert.Single(pair.BobOut.Packets);
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(0, pair.Alice.Counters[TunnelDropReason.UnknownIndex]);
    }

    [Fact]
    public void Defaults_OneWayDataOnWorkingUdp_TheFirstProbeIsLost_TheRepeatIsAnswered_NoDial()
    {
        using var pair = new FallbackPair(timers: Defaults);
        pair.Connect();
        var lost = 0;
        // Loses Alice's first handshake initiation (message type 1) after the session is up: the probe.
        pair.UdpLoses = bytes => bytes[0] == 1 && lost++ == 0;

        // Bob has nothing to send: only the probes answer Alice's data.
        pair.Run(TimeSpan.FromSeconds(2), () => pair.AliceSends());

        Assert.True(lost >= 2, $"initiations seen: {lost}; the lost probe was never repeated");
        Assert.Empty(pair.AliceConnector.Dials);
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(0, pair.Alice.Counters.PathSwitchesToTcp);
    }
}
