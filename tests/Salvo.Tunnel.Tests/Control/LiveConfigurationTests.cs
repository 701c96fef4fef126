using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

public sealed class LiveConfigurationTests
{
    private static PeerChange BobAgain(TunnelPair pair, params string[] allowedIps)
    {
        var change = new PeerChange(pair.BobKey.DerivePublicKey()) { ReplaceAllowedIps = true };
        foreach (var prefix in allowedIps)
        {
            change.AddAllowedIp(IPPrefix.Parse(prefix));
        }

        return change;
    }

    [Fact]
    public void Configure_ReplaceAllowedIps_NextLookupUsesTheNewRoutes()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        var change = new TunnelChange();
        change.Peers.Add(BobAgain(pair, "198.19.9.0/24"));
        pair.Alice.Configure(change, pair.AliceOut);

        var before = pair.Alice.Counters[TunnelDropReason.NoRoute];
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(before + 1, pair.Alice.Counters[TunnelDropReason.NoRoute]);
        Assert.Empty(pair.AliceOut.TakeDatagrams());

        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.9.7"));
        Assert.Single(pair.AliceOut.Datagrams);
        Assert.Equal(["198.19.9.0/24"], pair.Alice.GetPeers().Single().AllowedIps.Select(p => p.ToString()));
    }

    [Fact]
    public void Configure_PeerKeptByReplacePeers_KeepsSessionAndCounters()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var session = pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey());
        var peerBefore = pair.Alice.GetPeers().Single();
        Assert.NotNull(session);

        var change = new TunnelChange { ReplacePeers = true };
        change.Peers.Add(BobAgain(pair, "198.19.0.2/32"));
        pair.Alice.Configure(change, pair.AliceOut);

        Assert.Same(session, pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey()));
        var peerAfter = pair.Alice.GetPeers().Single();
        Assert.Equal(peerBefore.SentBytes, peerAfter.SentBytes);
        Assert.Equal(peerBefore.ReceivedBytes, peerAfter.ReceivedBytes);
        Assert.Equal(peerBefore.LatestHandshake, peerAfter.LatestHandshake);

        // The next packet goes out under the same session: a transport message (type 4), no new handshake.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(4, Assert.Single(pair.AliceOut.Datagrams).Bytes[0]);
    }

    [Fact]
    public void Configure_RemovePeer_WipesItsSessionAndDropsWhatWaited()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var session = pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey())!;

        // Bob's next packet was sealed under the session Alice is about to forget.
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        var inFlight = Assert.Single(pair.BobOut.TakeDatagrams());

        var change = new TunnelChange();
        change.Peers.Add(new PeerChange(pair.BobKey.DerivePublicKey()) { Remove = true });
        pair.Alice.Configure(change, pair.AliceOut);

        Assert.Empty(pair.Alice.GetPeers());
        Assert.Null(pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey()));
        Assert.Throws<ObjectDisposedException>(() => session.Send.Seal(new byte[12], [], new byte[16], new byte[32]));
        var unknown = pair.Alice.Counters[TunnelDropReason.UnknownIndex];
        pair.Alice.ReceiveDatagram(inFlight.Bytes, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        Assert.Equal(unknown + 1, pair.Alice.Counters[TunnelDropReason.UnknownIndex]);
        Assert.Empty(pair.AliceOut.Packets);
    }

    [Fact]
    public void Configure_RemovePeerWithStagedPackets_CountsThemDropped()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var change = new TunnelChange();
        change.Peers.Add(new PeerChange(pair.BobKey.DerivePublicKey()) { Remove = true });
        pair.Alice.Configure(change, pair.AliceOut);
        Assert.Equal(2, pair.Alice.Counters[TunnelDropReason.StagedDropped]);
    }

    [Fact]
    public void Configure_NewPeerWithKeepalive_SendsAtOnce()
    {
        using var pair = new TunnelPair();
        var carol = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var change = new TunnelChange();
        var peer = new PeerChange(carol) { Endpoint = new IPEndPoint(IPAddress.Loopback, 51999), PersistentKeepalive = TimeSpan.FromSeconds(25) };
        peer.AddAllowedIp(IPPrefix.Parse("198.19.5.0/24"));
        change.Peers.Add(peer);
        pair.Alice.Configure(change, pair.AliceOut);

        // No session yet, so the keepalive starts a handshake: an initiation to Carol's endpoint.
        var sent = Assert.Single(pair.AliceOut.TakeDatagrams());
        Assert.Equal(1, sent.Bytes[0]);
        Assert.Equal(51999, sent.Destination.ToIPEndPoint().Port);
        Assert.Equal(2, pair.Alice.GetPeers().Count);
    }

    [Fact]
    public void Configure_PresharedKeyAndUpdateOnly_AppliedOnlyToExistingPeers()
    {
        using var pair = new TunnelPair();
        var change = new TunnelChange();
        change.Peers.Add(new PeerChange(WireGuardKey.GeneratePrivateKey().DerivePublicKey()) { UpdateOnly = true });
        change.Peers.Add(new PeerChange(pair.BobKey.DerivePublicKey()) { UpdateOnly = true, SetsPresharedKey = true, PresharedKey = WireGuardKey.GeneratePresharedKey() });
        pair.Alice.Configure(change, pair.AliceOut);
        Assert.Single(pair.Alice.GetPeers());

        // Alice now mixes a preshared key Bob does not have: the handshake fails, which shows it was applied.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Exchange();
        Assert.Empty(pair.BobOut.Packets);
        Assert.Null(pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey()));
    }

    [Fact]
    public void Engine_WithoutPrivateKey_RefusesUntilOneIsSet()
    {
        using var pair = new TunnelPair();
        using var empty = new TunnelEngine(new TunnelConfiguration(), pair.Clock);
        var output = new RecordingOutput();
        Assert.Null(empty.PublicKey);

        // Bob's key goes to an engine with none: Alice's initiation is refused and counted, nothing thrown.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = Assert.Single(pair.AliceOut.TakeDatagrams());
        empty.ReceiveDatagram(initiation.Bytes, pair.AliceSource, output);
        Assert.Equal(1, empty.Counters[TunnelDropReason.NoPrivateKey]);

        var configure = new TunnelChange { SetsPrivateKey = true, PrivateKey = pair.BobKey };
        var alice = new PeerChange(pair.AliceKey.DerivePublicKey());
        alice.AddAllowedIp(IPPrefix.Parse("198.19.0.1/32"));
        configure.Peers.Add(alice);
        empty.Configure(configure, output);
        Assert.Equal(pair.BobKey.DerivePublicKey(), empty.PublicKey);
        empty.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1")), output);
        Assert.Equal(1, empty.Counters[TunnelDropReason.NoRoute]);

        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        empty.ReceiveDatagram(initiation.Bytes, pair.AliceSource, output);
        Assert.Equal(2, Assert.Single(output.TakeDatagrams()).Bytes[0]);
    }

    [Fact]
    public void Configure_PrivateKeyChanged_DropsSessionsAndTheSelfPeer()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var change = new TunnelChange { SetsPrivateKey = true, PrivateKey = pair.BobKey };
        pair.Alice.Configure(change, pair.AliceOut);

        Assert.Equal(pair.BobKey.DerivePublicKey(), pair.Alice.PublicKey);
        Assert.Empty(pair.Alice.GetPeers());
    }

    [Fact]
    public void Configure_OtherPrivateKey_KeepsPeersButNotSessions()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var sent = pair.Alice.GetPeers().Single().SentBytes;
        pair.Alice.Configure(new TunnelChange { SetsPrivateKey = true, PrivateKey = WireGuardKey.GeneratePrivateKey() }, pair.AliceOut);

        Assert.Null(pair.Alice.CurrentKeypairOf(pair.BobKey.DerivePublicKey()));
        Assert.Equal(sent, pair.Alice.GetPeers().Single().SentBytes);
    }
}
