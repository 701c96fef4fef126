using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Diagnostics;

/// <summary>A refused handshake or packet leaves a log line that says why, without one line per packet in a flood.</summary>
public sealed class RefusalLogTests
{
    [Fact]
    public void SourceOutsideAllowedIps_IsLoggedWithTheReasonAndSource()
    {
        var logger = new RecordingLogger();
        using var pair = new TunnelPair(bobLogger: logger);
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.9", "198.19.0.2"));
        pair.Exchange();

        Assert.Empty(pair.BobOut.Packets);
        var entry = Assert.Single(logger.Entries, e => e.Contains("refused", StringComparison.Ordinal));
        Assert.Contains("outside the peer's AllowedIPs", entry, StringComparison.Ordinal);
        Assert.Contains(TunnelPair.AliceEndpoint.ToString(), entry, StringComparison.Ordinal);
    }

    [Fact]
    public void UnknownPeer_HandshakeRefusalIsLogged()
    {
        var logger = new RecordingLogger();
        using var pair = new TunnelPair(bobLogger: logger);
        using var stranger = new TunnelEngine(new TunnelConfiguration
        {
            PrivateKey = WireGuardKey.GeneratePrivateKey(),
            Peers = [new PeerConfiguration
            {
                PublicKey = pair.BobKey.DerivePublicKey(),
                AllowedIps = [IPPrefix.Parse("0.0.0.0/0")],
                Endpoint = TunnelPair.BobEndpoint,
            }],
        }, pair.Clock);
        var output = new RecordingOutput();
        stranger.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2")), output);
        pair.Bob.ReceiveDatagram(output.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);

        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.UnknownPeer]);
        Assert.Equal(1, logger.CountContaining("not a configured peer"));
    }

    [Fact]
    public void UnroutedPacketFromDevice_IsLoggedAtDebugOnly()
    {
        var logger = new RecordingLogger();
        using var pair = new TunnelPair(bobLogger: logger);
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.77"));

        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.NoRoute]);
        var entry = Assert.Single(logger.Entries);
        Assert.StartsWith("Debug: ", entry, StringComparison.Ordinal);
        Assert.Contains("no peer's AllowedIPs hold the destination", entry, StringComparison.Ordinal);
    }

    [Fact]
    public void RepeatedRefusals_LogOncePerSecond_WithTheCountSkipped()
    {
        var logger = new RecordingLogger();
        using var pair = new TunnelPair(bobLogger: logger);
        for (var i = 0; i < 5; i++)
        {
            pair.Bob.ReceiveDatagram(new byte[] { 7, 0, 0, 0 }, pair.AliceSource, pair.BobOut);
        }

        Assert.Equal(1, logger.CountContaining("not a WireGuard message"));
        pair.Clock.Advance(TimeSpan.FromSeconds(1));
        pair.Bob.ReceiveDatagram(new byte[] { 7, 0, 0, 0 }, pair.AliceSource, pair.BobOut);
        Assert.Equal(2, logger.CountContaining("not a WireGuard message"));
        Assert.Contains(logger.Entries, e => e.Contains("(4 more for this reason not logged", StringComparison.Ordinal));
        Assert.Equal(6, pair.Bob.Counters[TunnelDropReason.Malformed]);
    }
}
