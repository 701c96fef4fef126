using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// What strangers and the control socket can do to lazy peers: a peer takes a session from the pool only once a peer
/// proved it holds its key, and a removed peer never takes one again, whichever thread still holds it.
/// </summary>
public sealed class LazyPeerAttackTests
{
    [Fact]
    public void Initiation_NamingAKnownPeerWithAForgedTimestamp_MakesNoSession()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams().Single(d => d.Bytes[0] == 1).Bytes;

        // A stranger knows Alice's public key (it is not secret) and can encrypt it as the initiation's static key, but
        // not the timestamp, which needs Alice's private key. MAC1 needs only Bob's public key, so it is made anew.
        initiation[MessageLayout.InitiationTimestamp] ^= 1;
        new CookieGenerator(TunnelCrypto.Default, pair.BobKey.DerivePublicKey().Bytes).AddMacs(initiation, MessageLayout.InitiationMac1, pair.Clock);
        for (var i = 0; i < 100; i++)
        {
            pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);
        }

        Assert.Equal(100, pair.Bob.Counters[TunnelDropReason.HandshakeNotAuthenticated]);
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(0, pair.Bob.ActivePeers);
        Assert.Equal(0, pair.Bob.TickingPeers);
    }

    [Fact]
    public void Initiation_ReplayedAfterTheSessionWasLetGo_MakesNoSession()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.Datagrams.Single(d => d.Bytes[0] == 1).Bytes.ToArray();
        pair.Exchange();
        for (var elapsed = TimeSpan.Zero; elapsed < 3 * WireGuardProtocol.RejectAfterTime + TimeSpan.FromSeconds(1); elapsed += TunnelEngine.TickInterval)
        {
            pair.Clock.Advance(TunnelEngine.TickInterval);
            pair.Bob.Tick(pair.BobOut);
        }

        Assert.Equal(0, pair.Bob.ActivePeers);
        pair.BobOut.Datagrams.Clear();

        // Recorded off the wire and sent again: refused by the timestamp the peer kept, before any session is taken.
        pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);

        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.StaleTimestamp]);
        Assert.Equal(0, pair.Bob.ActivePeers);
        Assert.Equal(0, pair.Bob.TickingPeers);
    }

    [Fact]
    public void Peer_RemovedWhileItsPacketIsBeingReceived_TakesNoSessionAfterwards()
    {
        using var pair = new TunnelPair();
        pair.Connect();

        // Both keys too old to send with: Bob stages a packet and both ends start a handshake; Alice's initiation
        // wins, so Bob holds the new keys as Next, and Alice's first packet under them sends what Bob staged.
        pair.Clock.Advance(WireGuardProtocol.RejectAfterTime + TimeSpan.FromSeconds(1));
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        pair.BobOut.Datagrams.Clear();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams().Single(d => d.Bytes[0] == 1).Bytes;
        pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);
        var response = pair.BobOut.TakeDatagrams().Single(d => d.Bytes[0] == 2).Bytes;
        pair.Alice.ReceiveDatagram(response, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        var data = pair.AliceOut.TakeDatagrams().First(d => d.Bytes[0] == 4).Bytes;

        // The control socket removes Alice while Bob's receive is inside the data path, after the packet's key was found:
        // the receive goes on with the Peer it holds, which must not take a session from the pool again.
        var removing = new RemovingOutput(() => pair.Bob.Configure(
            new TunnelChange { Peers = { new PeerChange(pair.AliceKey.DerivePublicKey()) { Remove = true } } }, output: null));
        pair.Bob.ReceiveDatagram(data, pair.AliceSource, removing);

        Assert.True(removing.Removed);
        Assert.Empty(pair.Bob.GetPeers());
        Assert.Empty(removing.Packets);
        Assert.Equal(0, pair.Bob.ActivePeers);
        Assert.Equal(0, pair.Bob.TickingPeers);
        pair.Clock.Advance(TunnelEngine.TickInterval);
        pair.Bob.Tick(pair.BobOut);
        Assert.Equal(0, pair.Bob.ActivePeers);
    }

    /// <summary>Runs <c>remove</c> at the first datagram the engine adds, on the engine's own thread, then records.</summary>
    private sealed class RemovingOutput(Action remove) : ITunnelOutput
    {
        public bool Removed { get; private set; }

        public List<byte[]> Packets { get; } = [];

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            if (!Removed)
            {
                Removed = true;
                remove();
            }

            return new byte[length];
        }

        public void WritePacket(ReadOnlySpan<byte> packet) => Packets.Add(packet.ToArray());
    }
}
