using System.Net;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Peers whose session state (keypairs, handshake, timers, queues, counters) exists only while they speak: what an idle
/// peer costs, and that a peer made active on its first packet, rekeyed and let go after silence behaves as before.
/// </summary>
// Reads the GC heap: alone, so another test's allocations (a 100,000-peer engine) do not count.
[Collection(Control.ControlSocketMemoryCollection.Name)]
public sealed class LazyPeerTests
{
    [Fact]
    public void Engine_HundredThousandIdlePeers_AtMost512BytesOfManagedMemoryEach()
    {
        const int Peers = 100_000;
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var engine = EngineWithPeers(Peers);
        engine.Tick(new RecordingOutput());
        var after = GC.GetTotalMemory(forceFullCollection: true);

        // Key, preshared key, endpoint, two AllowedIPs and their share of the trie and the by-key table: nothing else.
        var perPeer = (after - before) / Peers;
        Assert.InRange(perPeer, 1, 512);
        Assert.Equal(0, engine.ActivePeers);
        engine.Dispose();
    }

    [Fact]
    public void Peer_IdleUntilItsFirstPacket_ThenActive_AndLetGoAfterSilencePastTheKeyLifetime()
    {
        using var pair = new TunnelPair();
        Assert.Equal(0, pair.Alice.ActivePeers);
        Assert.Equal(0, pair.Bob.ActivePeers);

        pair.Connect();
        Assert.Equal(1, pair.Alice.ActivePeers);
        Assert.Equal(1, pair.Bob.ActivePeers);
        var bob = pair.BobKey.DerivePublicKey();
        var sentBefore = pair.Alice.GetPeers().Single().SentBytes;
        var handshakeBefore = pair.Alice.GetPeers().Single().LatestHandshake;

        // Silent past 3 x REJECT_AFTER_TIME (540 s): the keys are zeroed, as WireGuard does, and the state goes back.
        Run(pair, 3 * WireGuardProtocol.RejectAfterTime + TimeSpan.FromSeconds(1));
        Assert.Null(pair.Alice.CurrentKeypairOf(bob));
        Assert.Equal(0, pair.Alice.ActivePeers);
        Assert.Equal(0, pair.Bob.ActivePeers);

        // What wg show reports outlives the state: byte counts and the last handshake stay.
        var shown = pair.Alice.GetPeers().Single();
        Assert.Equal(sentBefore, shown.SentBytes);
        Assert.Equal(handshakeBefore, shown.LatestHandshake);
        Assert.False(shown.HasSession);

        // Speaking again makes it active again, and a new handshake carries the packet.
        pair.BobOut.Packets.Clear();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", payloadLength: 100));
        pair.Exchange();
        Assert.Single(pair.BobOut.Packets, p => p.Length == 120);
        Assert.NotNull(pair.Alice.CurrentKeypairOf(bob));
        Assert.True(pair.Alice.GetPeers().Single().SentBytes > sentBefore);
    }

    [Fact]
    public void Peer_LetGo_StillRefusesAReplayedInitiation()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.Datagrams.Single(d => d.Bytes[0] == 1).Bytes.ToArray();
        pair.Exchange();
        Run(pair, 3 * WireGuardProtocol.RejectAfterTime + TimeSpan.FromSeconds(1));
        Assert.Equal(0, pair.Bob.ActivePeers);
        pair.BobOut.Datagrams.Clear();

        // The newest initiation timestamp is kept with the peer: a recorded initiation gets no response after the
        // state was let go, as it got none before.
        pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);
        Assert.DoesNotContain(pair.BobOut.Datagrams, d => d.Bytes[0] == 2);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.StaleTimestamp]);
    }

    [Fact]
    public void Peer_HandshakeUnanswered_StaysActiveUntilItsKeysWouldHaveExpired()
    {
        using var pair = new TunnelPair();

        // Bob never answers: Alice retries for REKEY_ATTEMPT_TIME, drops what waited, and after 540 s lets go.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.Equal(1, pair.Alice.ActivePeers);
        RunAlice(pair, TimeSpan.FromSeconds(60));
        Assert.Equal(1, pair.Alice.ActivePeers);
        RunAlice(pair, WireGuardProtocol.RekeyAttemptTime + 3 * WireGuardProtocol.RejectAfterTime);
        Assert.Equal(0, pair.Alice.ActivePeers);
    }

    private static void Run(TunnelPair pair, TimeSpan duration)
    {
        for (var elapsed = TimeSpan.Zero; elapsed < duration; elapsed += TimeSpan.FromSeconds(1))
        {
            for (var tick = 0; tick < 10; tick++)
            {
                pair.Clock.Advance(TunnelEngine.TickInterval);
                pair.Alice.Tick(pair.AliceOut);
                pair.Bob.Tick(pair.BobOut);
            }

            pair.Exchange();
        }
    }

    private static void RunAlice(TunnelPair pair, TimeSpan duration)
    {
        for (var elapsed = TimeSpan.Zero; elapsed < duration; elapsed += TunnelEngine.TickInterval)
        {
            pair.Clock.Advance(TunnelEngine.TickInterval);
            pair.Alice.Tick(pair.AliceOut);
            pair.AliceOut.Datagrams.Clear();
        }
    }

    /// <summary>An engine with <paramref name="peers"/> peers as <c>wg setconf</c> adds them; the change is garbage on return.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static TunnelEngine EngineWithPeers(int peers)
    {
        var change = new TunnelChange { SetsPrivateKey = true, PrivateKey = WireGuardKey.GeneratePrivateKey() };
        for (var i = 2; i < peers + 2; i++)
        {
            var peer = new PeerChange(WireGuardKey.FromBytes(RandomNumberGenerator.GetBytes(WireGuardKey.Size)))
            {
                Endpoint = new IPEndPoint(IPAddress.Loopback, 10_000 + (i % 50_000)),
                ReplaceAllowedIps = true,
            };
            peer.AddAllowedIp(new IPPrefix(new IPAddress([10, (byte)(i >> 16), (byte)(i >> 8), (byte)i]), 32));
            var v6 = new byte[16];
            v6[0] = 0xfd;
            v6[2] = 0x05;
            v6[3] = 0xa1;
            System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(v6.AsSpan(12), i);
            peer.AddAllowedIp(new IPPrefix(new IPAddress(v6), 128));
            change.Peers.Add(peer);
        }

        return new TunnelEngine(change, new ManualClock());
    }
}
