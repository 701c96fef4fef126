using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// The responder computes DH(our static, the peer's static) once per peer and keeps it in the peer's session: a
/// peer's later initiations reuse it, and a new private key of ours, or a peer's new key, gets a new one (the
/// handshake completes with it).
/// </summary>
public sealed class StaticSecretCacheTests
{
    private static readonly DatagramAddress s_aliceSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 51001));
    private static readonly DatagramAddress s_bobSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 51002));
    private readonly ManualClock _clock = new();
    private readonly CountingKeyAgreement _counting = new(TunnelCrypto.Default.KeyAgreement);

    [Fact]
    public void SecondInitiationFromAPeer_ReusesTheStaticSecret()
    {
        var bobKey = WireGuardKey.GeneratePrivateKey();
        var aliceKey = WireGuardKey.GeneratePrivateKey();
        using var bob = Bob(bobKey, aliceKey.DerivePublicKey());

        for (var restart = 0; restart < 3; restart++)
        {
            // A restarted Alice: a new engine, so each initiation is a first one and Bob answers each.
            using var alice = Alice(aliceKey, bobKey.DerivePublicKey());
            Assert.True(Connects(alice, bob));
            _clock.Advance(TimeSpan.FromSeconds(1));
        }

        Assert.Equal(3, bob.Counters.HandshakesAnswered);
        Assert.Equal(1, _counting.Agreements(bobKey, aliceKey.DerivePublicKey()));
    }

    [Fact]
    public void AfterOurPrivateKeyChanges_TheSecretIsComputedAgain_AndTheHandshakeCompletes()
    {
        var bobKey = WireGuardKey.GeneratePrivateKey();
        var aliceKey = WireGuardKey.GeneratePrivateKey();
        using var bob = Bob(bobKey, aliceKey.DerivePublicKey());
        using (var alice = Alice(aliceKey, bobKey.DerivePublicKey()))
        {
            Assert.True(Connects(alice, bob));
        }

        var newBobKey = WireGuardKey.GeneratePrivateKey();
        bob.Configure(new TunnelChange { SetsPrivateKey = true, PrivateKey = newBobKey }, output: null);
        _clock.Advance(TimeSpan.FromSeconds(1));
        using var aliceAfter = Alice(aliceKey, newBobKey.DerivePublicKey());

        Assert.True(Connects(aliceAfter, bob));
        Assert.Equal(1, _counting.Agreements(newBobKey, aliceKey.DerivePublicKey()));
    }

    [Fact]
    public void AfterAPeersKeyIsReplaced_TheNewPeersHandshakeCompletes()
    {
        var bobKey = WireGuardKey.GeneratePrivateKey();
        var aliceKey = WireGuardKey.GeneratePrivateKey();
        using var bob = Bob(bobKey, aliceKey.DerivePublicKey());
        using (var alice = Alice(aliceKey, bobKey.DerivePublicKey()))
        {
            Assert.True(Connects(alice, bob));
        }

        var newAliceKey = WireGuardKey.GeneratePrivateKey();
        var change = new TunnelChange();
        change.Peers.Add(new PeerChange(aliceKey.DerivePublicKey()) { Remove = true });
        var added = new PeerChange(newAliceKey.DerivePublicKey());
        added.AddAllowedIp(IPPrefix.Parse("198.19.0.1/32"));
        change.Peers.Add(added);
        bob.Configure(change, output: null);
        _clock.Advance(TimeSpan.FromSeconds(1));
        using var newAlice = Alice(newAliceKey, bobKey.DerivePublicKey());

        Assert.True(Connects(newAlice, bob));
        Assert.Equal(1, _counting.Agreements(bobKey, newAliceKey.DerivePublicKey()));
    }

    private TunnelEngine Bob(WireGuardKey bobKey, WireGuardKey alicePublic) => new(
        new TunnelConfiguration
        {
            PrivateKey = bobKey,
            Peers = [new PeerConfiguration { PublicKey = alicePublic, AllowedIps = [IPPrefix.Parse("198.19.0.1/32")] }],
        },
        _clock,
        TunnelCrypto.Default with { KeyAgreement = _counting });

    private TunnelEngine Alice(WireGuardKey aliceKey, WireGuardKey bobPublic) => new(
        new TunnelConfiguration
        {
            PrivateKey = aliceKey,
            Peers = [new PeerConfiguration { PublicKey = bobPublic, AllowedIps = [IPPrefix.Parse("198.19.0.2/32")], Endpoint = s_bobSource.ToIPEndPoint() }],
        },
        _clock);

    /// <summary>Alice sends a packet; the wire is carried until quiet; true when Bob delivered it (the handshake completed and was confirmed).</summary>
    private static bool Connects(TunnelEngine alice, TunnelEngine bob)
    {
        var aliceOut = new RecordingOutput();
        var bobOut = new RecordingOutput();
        var packet = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2");
        alice.SendPackets(TunnelPair.Batch(packet), aliceOut);
        for (var round = 0; round < 10; round++)
        {
            foreach (var (bytes, _) in aliceOut.TakeDatagrams())
            {
                bob.ReceiveDatagram(bytes, s_aliceSource, bobOut);
            }

            foreach (var (bytes, _) in bobOut.TakeDatagrams())
            {
                alice.ReceiveDatagram(bytes, s_bobSource, aliceOut);
            }
        }

        return bobOut.Packets.Any(delivered => delivered.AsSpan().SequenceEqual(packet));
    }

    /// <summary>X25519 that counts its agreements by the pair of keys they joined.</summary>
    private sealed class CountingKeyAgreement(IKeyAgreement inner) : IKeyAgreement
    {
        private readonly List<(byte[] Private, byte[] Public)> _agreements = [];

        public int Agreements(WireGuardKey privateKey, WireGuardKey publicKey)
        {
            lock (_agreements)
            {
                return _agreements.Count(a => a.Private.AsSpan().SequenceEqual(privateKey.Bytes) && a.Public.AsSpan().SequenceEqual(publicKey.Bytes));
            }
        }

        public void GeneratePrivateKey(Span<byte> privateKey) => inner.GeneratePrivateKey(privateKey);

        public void DerivePublicKey(ReadOnlySpan<byte> privateKey, Span<byte> publicKey) => inner.DerivePublicKey(privateKey, publicKey);

        public bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret)
        {
            lock (_agreements)
            {
                _agreements.Add((privateKey.ToArray(), publicKey.ToArray()));
            }

            return inner.TryAgree(privateKey, publicKey, sharedSecret);
        }
    }
}
