using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>The protocol's timers, driven by a fake clock in 100 ms ticks as the device drives them.</summary>
public sealed class TimerTests
{
    private static int CountOfType(RecordingOutput output, int type) => output.Datagrams.Count(d => d.Bytes[0] == type);

    private static void Run(TunnelPair pair, TunnelEngine engine, RecordingOutput output, TimeSpan duration)
    {
        for (var elapsed = TimeSpan.Zero; elapsed < duration; elapsed += TunnelEngine.TickInterval)
        {
            pair.Clock.Advance(TunnelEngine.TickInterval);
            engine.Tick(output);
        }
    }

    [Fact]
    public void UnansweredInitiation_IsRetriedEveryRekeyTimeoutPlusJitter()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(4.9));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(0.5));
        Assert.Equal(2, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void UnansweredInitiation_GivesUpAfterRekeyAttemptTime_AndDropsStagedPackets()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Run(pair, pair.Alice, pair.AliceOut, WireGuardProtocol.RekeyAttemptTime + TimeSpan.FromSeconds(10));
        var sent = CountOfType(pair.AliceOut, 1);
        Assert.Equal(1 + WireGuardProtocol.MaxHandshakeAttempts, sent);
        Assert.Equal(1, pair.Alice.Counters[TunnelDropReason.StagedDropped]);

        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(60));
        Assert.Equal(sent, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void ReceivedData_NothingSentBack_KeepaliveAfterTenSeconds()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.BobOut.Datagrams.Clear();
        Run(pair, pair.Bob, pair.BobOut, TimeSpan.FromSeconds(9.9));
        Assert.Empty(pair.BobOut.Datagrams);
        Run(pair, pair.Bob, pair.BobOut, TimeSpan.FromSeconds(0.2));
        var keepalive = Assert.Single(pair.BobOut.Datagrams);
        Assert.Equal(32, keepalive.Bytes.Length);
    }

    [Fact]
    public void ReceivedData_AnsweredWithData_NoKeepalive()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        pair.BobOut.Datagrams.Clear();
        Run(pair, pair.Bob, pair.BobOut, TimeSpan.FromSeconds(11));
        Assert.Empty(pair.BobOut.Datagrams);
    }

    [Fact]
    public void PersistentKeepalive_SendsEmptyPacketEachInterval()
    {
        using var pair = new TunnelPair(alicePersistentKeepalive: TimeSpan.FromSeconds(25));
        pair.ConnectBothWays();

        // Bob's answer arms the ordinary keepalive (10 s); every packet sent then re-arms the persistent one (25 s).
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(10.1));
        Assert.Single(pair.AliceOut.Datagrams);
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(24.8));
        Assert.Single(pair.AliceOut.Datagrams);
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(0.3));
        Assert.Equal(2, pair.AliceOut.Datagrams.Count);
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(25));
        Assert.Equal(3, pair.AliceOut.Datagrams.Count);
        Assert.All(pair.AliceOut.Datagrams, d => Assert.Equal(32, d.Bytes.Length));
    }

    [Fact]
    public void DataSent_NoAnswerForFifteenSeconds_StartsNewHandshake()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        // Start past the 5 s gap between initiations, then send data that Bob never answers.
        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(14.9));
        Assert.Equal(0, CountOfType(pair.AliceOut, 1));
        Run(pair, pair.Alice, pair.AliceOut, TimeSpan.FromSeconds(0.5));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void RekeyAfterTime_InitiatorSendingOnOldKey_StartsHandshakeButStillSends()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceOut.Datagrams.Clear();
        pair.Clock.Advance(WireGuardProtocol.RekeyAfterTime - TimeSpan.FromSeconds(1));
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(0, CountOfType(pair.AliceOut, 1));

        pair.Clock.Advance(TimeSpan.FromSeconds(2));
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(2, CountOfType(pair.AliceOut, 4));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void RejectAfterTime_KeyTooOld_PacketWaitsForNewHandshake()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceOut.Datagrams.Clear();
        pair.Clock.Advance(WireGuardProtocol.RejectAfterTime);
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(0, CountOfType(pair.AliceOut, 4));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));

        pair.Exchange();
        Assert.Single(pair.BobOut.Packets);
    }

    [Fact]
    public void RejectAfterTime_OldMessageArriving_IsRefused()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var late = pair.AliceOut.TakeDatagrams()[0].Bytes;
        pair.Clock.Advance(WireGuardProtocol.RejectAfterTime);
        pair.Bob.ReceiveDatagram(late, pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Packets);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.Expired]);
    }

    [Fact]
    public void RekeyAfterMessages_CounterAtLimit_StartsHandshake()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceOut.Datagrams.Clear();
        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey())!.SetNextSendCounter(WireGuardProtocol.RekeyAfterMessages);
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(1, CountOfType(pair.AliceOut, 4));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void RejectAfterMessages_CounterExhausted_NothingSentUnderThatKey()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceOut.Datagrams.Clear();
        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey())!.SetNextSendCounter(WireGuardProtocol.RejectAfterMessages);
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(0, CountOfType(pair.AliceOut, 4));
        Assert.Equal(1, CountOfType(pair.AliceOut, 1));
    }

    [Fact]
    public void ZeroKeyMaterial_AfterThreeRejectTimes_KeysAreGone()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        var bob = pair.BobKey.DerivePublicKey();
        Assert.NotNull(pair.Alice.CurrentKeypairOf(bob));
        Run(pair, pair.Alice, new RecordingOutput(), 3 * WireGuardProtocol.RejectAfterTime + TimeSpan.FromSeconds(1));
        Assert.Null(pair.Alice.CurrentKeypairOf(bob));
    }
}
