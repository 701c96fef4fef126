using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Diagnostics;

/// <summary>A peer whose initiations go unanswered is named in its status and logged once per interval, with the likely causes.</summary>
public sealed class UnansweredPeerTests
{
    private const string Unanswered = "does not answer";

    private static TunnelEngine Lonely(ManualClock clock, RecordingLogger logger) => new(
        new TunnelConfiguration
        {
            PrivateKey = WireGuardKey.GeneratePrivateKey(),
            Peers =
            [
                new PeerConfiguration
                {
                    PublicKey = WireGuardKey.GeneratePrivateKey().DerivePublicKey(),
                    AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                    Endpoint = TunnelPair.BobEndpoint,
                },
            ],
        },
        clock,
        jitter: new Random(1),
        logger: logger);

    /// <summary>Ticks as the device does; the peer sends data every tick so a new handshake is always wanted.</summary>
    private static void RunUntil(TunnelEngine engine, ManualClock clock, RecordingOutput output, TimeSpan until, ref TimeSpan now)
    {
        for (; now < until; now += TunnelEngine.TickInterval)
        {
            clock.Advance(TunnelEngine.TickInterval);
            engine.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2")), output);
            engine.Tick(output);
        }
    }

    [Fact]
    public void Initiations_UnansweredFifteenSeconds_PeerNamed_LoggedOncePerInterval()
    {
        var clock = new ManualClock();
        var logger = new RecordingLogger();
        var output = new RecordingOutput();
        using var engine = Lonely(clock, logger);
        var now = TimeSpan.Zero;

        RunUntil(engine, clock, output, TimeSpan.FromSeconds(14), ref now);
        var early = Assert.Single(engine.GetPeers());
        Assert.Equal(3, early.InitiationsSent);
        Assert.False(early.IsUnanswered);
        Assert.Equal(0, logger.CountContaining(Unanswered));

        RunUntil(engine, clock, output, TimeSpan.FromSeconds(16.5), ref now);
        var named = Assert.Single(engine.GetPeers());
        Assert.True(named.IsUnanswered);
        Assert.Equal(4, named.InitiationsUnanswered);
        Assert.NotNull(named.UnansweredSince);
        var line = Assert.Single(logger.Entries, entry => entry.Contains(Unanswered, StringComparison.Ordinal));
        Assert.Contains("public key", line, StringComparison.Ordinal);
        Assert.Contains("endpoint is wrong", line, StringComparison.Ordinal);
        Assert.Contains("firewall drops UDP", line, StringComparison.Ordinal);

        // A retry every 5 s: about eleven more before the interval ends, and not one more line.
        RunUntil(engine, clock, output, TimeSpan.FromSeconds(74), ref now);
        Assert.True(engine.GetPeers()[0].InitiationsSent >= 14);
        Assert.Equal(1, logger.CountContaining(Unanswered));

        RunUntil(engine, clock, output, TimeSpan.FromSeconds(81), ref now);
        Assert.Equal(2, logger.CountContaining(Unanswered));
    }

    [Fact]
    public void Initiation_Answered_PeerNotNamed_CountsReset()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        var peer = Assert.Single(pair.Alice.GetPeers());
        Assert.Equal(1, peer.InitiationsSent);
        Assert.Equal(0, peer.InitiationsUnanswered);
        Assert.Null(peer.UnansweredSince);
        Assert.False(peer.IsUnanswered);
    }

    [Fact]
    public void SendPackets_CountsBatchesAndTheirPackets()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        var packet = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2");
        pair.Alice.SendPackets(TunnelPair.Batch(packet, packet, packet), pair.AliceOut);
        Assert.Equal(2, pair.Alice.Counters.SendBatches);
        Assert.Equal(4, pair.Alice.Counters.PacketsInSendBatches);
    }
}
