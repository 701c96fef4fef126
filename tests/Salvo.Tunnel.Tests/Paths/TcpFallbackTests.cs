using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Paths;

/// <summary>The TCP fallback's decisions, driven by a fake clock in 100 ms ticks: when UDP is left, when it is probed, when it is taken back.</summary>
public sealed class TcpFallbackTests
{
    private static int Initiations(IEnumerable<(byte[] Bytes, DatagramAddress Destination)> datagrams) => datagrams.Count(d => d.Bytes[0] == 1);

    /// <summary>Connects, blocks UDP, and lets Alice send data each tick until she dials; the dial is answered.</summary>
    private static void FallBack(FallbackPair pair)
    {
        pair.Connect();
        pair.UdpBlocked = true;
        pair.Run(TimeSpan.FromSeconds(3), () => pair.AliceSends());
        Assert.Single(pair.AliceConnector.Dials);
        pair.OpenTcp();
    }

    [Fact]
    public void UdpBlockedWhileSending_HandshakeProbeThenDial_MovesToTcp()
    {
        using var pair = new FallbackPair();
        pair.Connect();
        pair.UdpBlocked = true;
        var initiationsBefore = pair.UdpDropped;

        pair.Run(TimeSpan.FromSeconds(1.05), () => pair.AliceSends());
        Assert.Empty(pair.AliceConnector.Dials);
        pair.Run(TimeSpan.FromSeconds(1.05), () => pair.AliceSends());

        var dial = Assert.Single(pair.AliceConnector.Dials);
        Assert.Equal(pair.AlicePeer, dial.Peer);
        Assert.Equal(FallbackPair.BobUdp.ToIPEndPoint(), dial.EndPoint);
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);

        pair.OpenTcp();
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(1, pair.Alice.Counters.PathSwitchesToTcp);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from UDP to TCP: no authenticated UDP datagram for"));
        Assert.True(pair.UdpDropped > initiationsBefore);
    }

    [Fact]
    public void OnTcp_DataReachesThePeer_AndThePeerAnswersOverTcp()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.BobOut.Packets.Clear();
        pair.AliceOut.Packets.Clear();

        pair.AliceSends();
        Assert.All(pair.AliceOut.Datagrams, d => Assert.Equal(FallbackPair.AliceTcp, d.Destination));
        pair.Exchange();
        Assert.Single(pair.BobOut.Packets);
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);
        Assert.Equal(1, pair.BobLog.CountContaining("moved from UDP to TCP: the peer sends over TCP"));

        // A forged message on the connection is refused and logged with the connection's name, not its made-up address.
        pair.Bob.ReceiveDatagram(new byte[32], FallbackPair.BobTcp, pair.BobOut);
        Assert.Equal(1, pair.BobLog.CountContaining("refused a datagram from TCP connection 2"));

        pair.BobSends();
        Assert.All(pair.BobOut.Datagrams, d => Assert.Equal(FallbackPair.BobTcp, d.Destination));
        pair.Exchange();
        Assert.Single(pair.AliceOut.Packets);
    }

    [Fact]
    public void OnTcp_ConnectionGoesSilent_ClosedAfterFifteenSeconds_AndTheFallbackDialsANewOne()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);
        pair.BobSends();
        pair.Exchange();
        pair.TcpGoesSilent();

        // Alice's data goes out each tick and nothing comes back: the first send of the silence starts the 15 s.
        pair.Run(TimeSpan.FromSeconds(14.8), () => pair.AliceSends());
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Empty(pair.AliceConnector.Closes);
        pair.Run(TimeSpan.FromSeconds(0.4), () => pair.AliceSends());

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal([(FallbackPair.AliceTcp, TimeSpan.Zero)], pair.AliceConnector.Closes);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from TCP to UDP: no authenticated message over TCP for 15"));

        // UDP is still blocked: the fallback finds it so again and dials a new connection.
        pair.Run(TimeSpan.FromSeconds(3), () => pair.AliceSends());
        Assert.Equal(2, pair.AliceConnector.Dials.Count);
        pair.OpenTcp();
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
    }

    [Theory]
    [InlineData(10.9)]
    [InlineData(0)]
    public void DeadConnectionAfter_BelowTheKeepaliveAndItsMargin_IsRefusedNamingIt(double seconds)
    {
        var options = new TcpFallbackOptions { DeadConnectionAfter = TimeSpan.FromSeconds(seconds) };

        var error = Assert.Throws<ArgumentOutOfRangeException>(options.Validate);
        Assert.Equal(nameof(TcpFallbackOptions.DeadConnectionAfter), error.ParamName);
        new TcpFallbackOptions { DeadConnectionAfter = TimeSpan.FromSeconds(11) }.Validate();
    }

    [Fact]
    public void OnTcp_DataOneWay_ThePeersKeepalivesAnswer_TheConnectionIsKept()
    {
        using var pair = new FallbackPair();
        FallBack(pair);

        pair.Run(TimeSpan.FromSeconds(60), () => pair.AliceSends());

        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.DoesNotContain(pair.AliceConnector.Closes, close => close.After == TimeSpan.Zero);
        Assert.Equal(0, pair.AliceLog.CountContaining("no authenticated message over TCP"));
    }

    [Fact]
    public void OnTcp_UdpProbes_BackOffFromFiveSecondsDoublingToSixty() =>
        Assert.Equal([5.0, 15.0, 35.0, 75.0, 135.0, 195.0], ProbeTimes(FallbackPair.Timers));

    [Fact]
    public void OnTcp_UdpProbes_FollowTheConfiguredRetryBackoff()
    {
        var timers = new TcpFallbackOptions { UdpReprobeBackoff = new(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(8), Jitter: 0) };

        Assert.Equal([2.0, 6.0, 14.0, 22.0, 30.0, 38.0], ProbeTimes(timers, seconds: 40));
    }

    [Theory]
    [InlineData(0.0, 60.0, 0.2, "UdpReprobeBackoff.FirstDelay")]
    [InlineData(5.0, 1.0, 0.2, "UdpReprobeBackoff.MaxDelay")]
    [InlineData(5.0, 60.0, 1.5, "UdpReprobeBackoff.Jitter")]
    public void UdpReprobeBackoff_Invalid_IsRefusedNamingIt(double first, double max, double jitter, string option)
    {
        var options = new TcpFallbackOptions { UdpReprobeBackoff = new(TimeSpan.FromSeconds(first), TimeSpan.FromSeconds(max), jitter) };

        var error = Assert.Throws<ArgumentOutOfRangeException>(options.Validate);
        Assert.Equal(option, error.ParamName);
        Assert.StartsWith(option, error.Message, StringComparison.Ordinal);
    }

    /// <summary>When, in seconds after falling back, Alice's UDP probes go out over <paramref name="seconds"/>.</summary>
    private static List<double> ProbeTimes(TcpFallbackOptions timers, int seconds = 200)
    {
        using var pair = new FallbackPair(timers: timers);
        FallBack(pair);
        var probeTimes = new List<double>();
        var elapsed = 0.0;
        pair.Run(TimeSpan.FromSeconds(seconds), () =>
        {
            elapsed += 0.1;
            var dropped = pair.UdpDropped;
            pair.Alice.Tick(pair.AliceOut);
            pair.Exchange();
            if (pair.UdpDropped > dropped)
            {
                probeTimes.Add(Math.Round(elapsed, 1));
            }
        });

        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        return probeTimes;
    }

    [Fact]
    public void OnTcp_ProbeAnsweredOverUdp_BothMoveBack_AndTheConnectionClosesAfterTheGracePeriod()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);
        pair.UdpBlocked = false;

        pair.Run(TimeSpan.FromSeconds(4.5));

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(TunnelPath.Udp, pair.BobPath);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from TCP to UDP: UDP probe 1 was answered"));
        Assert.Equal([(FallbackPair.AliceTcp, FallbackPair.Timers.SwitchGracePeriod)], pair.AliceConnector.Closes);
        Assert.Equal(1, pair.Alice.Counters.PathSwitchesToUdp);
        pair.AliceSends();
        Assert.All(pair.AliceOut.Datagrams, d => Assert.Equal(FallbackPair.BobUdp, d.Destination));
    }

    [Fact]
    public void MessagesStillOnTheOldPath_AreDeliveredOnce_AndDoNotPullTrafficBack()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());
        pair.UdpBlocked = false;

        // Each tick on TCP, Alice sends a 21-byte packet that the connection holds up until the next tick; the last
        // ones are still held when a UDP probe is answered and Alice moves to UDP.
        var held = new List<byte[]>();
        var sentOverTcp = 0;
        pair.Run(TimeSpan.FromSeconds(5), () =>
        {
            if (pair.AlicePath == TunnelPath.Tcp)
            {
                foreach (var bytes in held)
                {
                    pair.Bob.ReceiveDatagram(bytes, FallbackPair.BobTcp, pair.BobOut);
                }

                held.Clear();
                pair.AliceSends(1);
                held.AddRange(pair.AliceOut.TakeDatagrams().Select(d => d.Bytes));
                sentOverTcp++;
            }
        });
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        pair.BobOut.Packets.RemoveAll(p => p.Length != 21);
        pair.AliceSends(3);
        pair.Exchange();

        foreach (var bytes in held.Concat(held.Select(b => b.ToArray())).ToList())
        {
            pair.Bob.ReceiveDatagram(bytes.ToArray(), FallbackPair.BobTcp, pair.BobOut);
        }

        Assert.NotEmpty(held);
        Assert.Equal(sentOverTcp, pair.BobOut.Packets.Count(p => p.Length == 21));
        Assert.Equal(held.Count, pair.Bob.Counters[TunnelDropReason.Replayed]);
        Assert.Equal(TunnelPath.Udp, pair.BobPath);
    }

    [Fact]
    public void OneWayDataOnWorkingUdp_TheHandshakeProbeIsAnswered_NoDial()
    {
        using var pair = new FallbackPair();
        pair.Connect();

        var answeredBefore = pair.Bob.Counters.HandshakesAnswered;
        pair.Run(TimeSpan.FromSeconds(30), () => pair.AliceSends());
        var initiations = pair.Bob.Counters.HandshakesAnswered - answeredBefore;

        // Bob has nothing to send, so only the probes answer Alice: one per REKEY_TIMEOUT (5 s), not one per second.
        Assert.InRange(initiations, 5, 7);
        Assert.Empty(pair.AliceConnector.Dials);
        Assert.Empty(pair.BobConnector.Dials);
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(0, pair.Alice.Counters.PathSwitchesToTcp);
    }

    [Fact]
    public void DialRefused_StaysOnUdp_AndTriesAgainOnTheBackOffSchedule()
    {
        using var pair = new FallbackPair();
        pair.Connect();
        pair.UdpBlocked = true;
        pair.Run(TimeSpan.FromSeconds(3), () => pair.AliceSends());
        Assert.Single(pair.AliceConnector.Dials);

        pair.Alice.OnTcpDialFailed(pair.AlicePeer, "Connection refused");
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(1, pair.AliceLog.CountContaining("no TCP fallback to 198.18.0.2:51820 (Connection refused); staying on UDP, next attempt in 5.0 s"));
        // Nothing before the 5 s back-off; then a fresh handshake probe, and the dial when it goes unanswered.
        pair.Run(TimeSpan.FromSeconds(5.9), () => pair.AliceSends());
        Assert.Single(pair.AliceConnector.Dials);
        pair.Run(TimeSpan.FromSeconds(0.3), () => pair.AliceSends());
        Assert.Equal(2, pair.AliceConnector.Dials.Count);
        Assert.Equal(0, pair.Alice.Counters.PathSwitchesToTcp);
    }

    [Fact]
    public void UdpComesBackWhileDialing_TheNewConnectionIsClosedAtOnce()
    {
        using var pair = new FallbackPair();
        pair.Connect();
        pair.UdpBlocked = true;
        pair.Run(TimeSpan.FromSeconds(3), () => pair.AliceSends());
        pair.UdpBlocked = false;
        pair.BobSends();
        pair.Exchange();

        pair.OpenTcp();

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal([(FallbackPair.AliceTcp, TimeSpan.Zero)], pair.AliceConnector.Closes);
    }

    [Fact]
    public void ModeOff_UdpBlocked_NeverDials()
    {
        using var pair = new FallbackPair(aliceMode: TcpFallbackMode.Off);
        pair.Connect();
        pair.UdpBlocked = true;

        pair.Run(TimeSpan.FromSeconds(30), () => pair.AliceSends());

        Assert.Empty(pair.AliceConnector.Dials);
        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
    }

    [Fact]
    public void ModeOnly_DialsAtOnce_AndSendsNothingOverUdp()
    {
        using var pair = new FallbackPair(aliceMode: TcpFallbackMode.Only);
        pair.Run(TimeSpan.FromSeconds(0.1));
        Assert.Single(pair.AliceConnector.Dials);
        pair.OpenTcp();

        pair.AliceSends();
        pair.Exchange();
        pair.Run(TimeSpan.FromSeconds(30), () => pair.AliceSends());

        Assert.Equal(0, pair.UdpDropped);
        Assert.NotEmpty(pair.BobOut.Packets);
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);
        Assert.Equal("TcpFallback = only", pair.Alice.GetPeers()[0].PathReason);
    }

    [Fact]
    public void ModeOnly_PacketSentBetweenTheConnectionOpeningAndTheTick_OneInitiation_SessionAtOnce()
    {
        using var pair = new FallbackPair(aliceMode: TcpFallbackMode.Only);
        pair.Run(TimeSpan.FromSeconds(0.1));
        pair.OpenTcp();

        // The connection opens on another thread: a packet can start the handshake over it before the next tick does.
        pair.AliceSends();
        pair.Alice.Tick(pair.AliceOut);
        var initiations = pair.AliceOut.Datagrams.Count(datagram => datagram.Bytes[0] == 1);
        pair.Exchange();
        pair.Run(TimeSpan.FromSeconds(0.5));

        // A second initiation would forget the first one's index (its response refused) and Bob would refuse it as a
        // flood: the packet would wait for the retransmission 5 s later.
        Assert.Equal(1, initiations);
        Assert.NotEmpty(pair.BobOut.Packets);
    }

    [Fact]
    public void TcpConnectionCloses_BackToUdp()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());

        pair.CloseTcp();

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(TunnelPath.Udp, pair.BobPath);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from TCP to UDP: the TCP connection closed"));
        pair.AliceSends();
        Assert.All(pair.AliceOut.Datagrams, d => Assert.Equal(FallbackPair.BobUdp, d.Destination));
    }

    [Fact]
    public void BothEndsDialed_FramesComeOnThePeersConnection_TheDialerStillProbesAndClosesItsOwn()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);

        // Bob dialed too: his frames reach Alice on the connection he opened, which Alice knows by another name.
        var bobsConnection = TcpPathAddress.Create(3);
        pair.BobSends();
        foreach (var (bytes, _) in pair.BobOut.TakeDatagrams())
        {
            pair.Alice.ReceiveDatagram(bytes, bobsConnection, pair.AliceOut);
        }

        pair.AliceSends();
        Assert.All(pair.AliceOut.TakeDatagrams(), d => Assert.Equal(bobsConnection, d.Destination));
        pair.UdpBlocked = false;
        pair.Run(TimeSpan.FromSeconds(4.5));

        Assert.Equal(TunnelPath.Udp, pair.AlicePath);
        Assert.Equal(1, pair.AliceLog.CountContaining("moved from TCP to UDP: UDP probe 1 was answered"));
        Assert.Equal([(FallbackPair.AliceTcp, FallbackPair.Timers.SwitchGracePeriod)], pair.AliceConnector.Closes);
    }

    [Fact]
    public void OwnConnectionCloses_WhileThePeersIsOpen_StaysOnTcpOverIt()
    {
        using var pair = new FallbackPair();
        FallBack(pair);
        pair.Run(TimeSpan.FromSeconds(1), () => pair.AliceSends());
        var bobsConnection = TcpPathAddress.Create(3);
        pair.BobSends();
        foreach (var (bytes, _) in pair.BobOut.TakeDatagrams())
        {
            pair.Alice.ReceiveDatagram(bytes, bobsConnection, pair.AliceOut);
        }

        pair.Alice.OnTcpPathClosed(FallbackPair.AliceTcp);

        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        pair.AliceSends();
        Assert.All(pair.AliceOut.TakeDatagrams(), d => Assert.Equal(bobsConnection, d.Destination));
    }

    [Fact]
    public void UdpBlockedFromTheStart_TheFirstHandshakeGoesUnanswered_FallsBackAndTheWaitingPacketArrivesOverTcp()
    {
        using var pair = new FallbackPair();
        pair.UdpBlocked = true;
        pair.AliceSends();

        pair.Run(TimeSpan.FromSeconds(2.2));
        Assert.Single(pair.AliceConnector.Dials);
        pair.OpenTcp();
        pair.Run(TimeSpan.FromSeconds(0.2));

        // The handshake goes over TCP at the next tick, not at the next retransmission 5 s later.
        Assert.Single(pair.BobOut.Packets);
        Assert.Equal(TunnelPath.Tcp, pair.AlicePath);
        Assert.Equal(TunnelPath.Tcp, pair.BobPath);
    }

    [Fact]
    public void TcpPathAddress_NamesConnections_AndNoUdpAddress()
    {
        Assert.True(TcpPathAddress.IsTcp(TcpPathAddress.Create(7)));
        Assert.NotEqual(TcpPathAddress.Create(7), TcpPathAddress.Create(8));
        Assert.False(TcpPathAddress.IsTcp(FallbackPair.BobUdp));
        Assert.False(TcpPathAddress.IsTcp(DatagramAddress.Create(System.Net.IPAddress.IPv6Loopback, 0)));
        Assert.False(TcpPathAddress.IsTcp(default));
    }
}
