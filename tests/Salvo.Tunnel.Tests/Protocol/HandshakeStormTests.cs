using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Many new peers starting handshakes at once at an engine with many peers: each gets through the cookie round, and
/// an established peer's traffic keeps flowing meanwhile (the smaller sibling of benchmarks/handshake-storm).
/// </summary>
public sealed class HandshakeStormTests
{
    private const string EstablishedAddress = "10.255.255.254";
    private const string LocalAddress = "198.18.0.1";
    private static readonly DatagramAddress s_establishedSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 2));
    private static readonly DatagramAddress s_responderSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 1));

    [Fact]
    public void InitiationStorm_UnderLoad_EveryInitiatorGetsACookieAndCompletes_EstablishedPeerKeepsFlowing()
    {
        const int Peers = 100_000;
        const int Initiators = 1_000;
        var initiatorKeys = Enumerable.Range(0, Initiators).Select(_ => WireGuardKey.GeneratePrivateKey()).ToArray();
        using var storm = new Storm(Peers, initiatorKeys, TunnelCrypto.Default);
        storm.Responder.UnderLoad = true;

        var cookies = 0;
        var completed = 0;
        var delivered = 0;
        var sent = 0;
        var output = new RecordingOutput();
        for (var i = 0; i < Initiators; i++)
        {
            var initiator = storm.Initiators[i];
            storm.Responder.ReceiveDatagram(initiator.Initiation, initiator.Source, output);
            var reply = Assert.Single(output.TakeDatagrams()).Bytes;
            if (MessageLayout.Classify(reply) == MessageType.CookieReply && initiator.TakeCookie(reply))
            {
                cookies++;
            }

            storm.Responder.ReceiveDatagram(initiator.Initiation, initiator.Source, output);
            var response = Assert.Single(output.TakeDatagrams()).Bytes;
            if (initiator.TakeResponse(response) is { } keepalive)
            {
                storm.Responder.ReceiveDatagram(keepalive, initiator.Source, output);
                completed += storm.Responder.CurrentKeypairOf(initiatorKeys[i].DerivePublicKey()) is null ? 0 : 1;
            }

            (var ours, var theirs) = storm.CarryOnePacketEachWay();
            delivered += ours;
            sent += theirs;
        }

        Assert.Equal(Initiators, cookies);
        Assert.Equal(Initiators, completed);
        Assert.Equal(Initiators, storm.Responder.Counters.CookieRepliesSent);
        Assert.Equal(Initiators, delivered);
        Assert.Equal(Initiators, sent);
    }

    [Fact]
    public void InitiationDiffieHellman_DoesNotHoldUpTheEstablishedPeersTraffic()
    {
        var gated = new GatedKeyAgreement(TunnelCrypto.Default.KeyAgreement);
        using var storm = new Storm(10, [WireGuardKey.GeneratePrivateKey()], TunnelCrypto.Default with { KeyAgreement = gated });
        var initiator = storm.Initiators[0];
        var output = new RecordingOutput();

        // The initiation's first X25519 operation waits until released, as a slow one would while many queue.
        gated.Arm();
        var handshake = new Thread(() => storm.Responder.ReceiveDatagram(initiator.Initiation, initiator.Source, output)) { IsBackground = true };
        handshake.Start();
        var carried = (Delivered: 0, Sent: 0);
        using var dataDone = new ManualResetEventSlim();
        var data = new Thread(() =>
        {
            for (var i = 0; i < 100; i++)
            {
                var (ours, theirs) = storm.CarryOnePacketEachWay();
                carried = (carried.Delivered + ours, carried.Sent + theirs);
            }

            dataDone.Set();
        })
        { IsBackground = true };
        bool carriedMeanwhile;
        try
        {
            Assert.True(gated.Entered.Wait(TimeSpan.FromSeconds(30)), "the handshake never reached its Diffie-Hellman");
            data.Start();

            // Without the engine's locks held through the Diffie-Hellman this takes microseconds; with them, it waits for the release.
            carriedMeanwhile = dataDone.Wait(TimeSpan.FromSeconds(30));
        }
        finally
        {
            gated.Release();
            handshake.Join();
        }

        data.Join();
        Assert.True(carriedMeanwhile, "the established peer's packets waited for another peer's handshake");
        Assert.Equal((100, 100), carried);
        var response = Assert.Single(output.TakeDatagrams()).Bytes;
        Assert.NotNull(initiator.TakeResponse(response));
    }

    /// <summary>A responder with many idle peers, the storm's initiators among them, and one peer with a session up.</summary>
    private sealed class Storm : IDisposable
    {
        private readonly TunnelEngine _established;
        private readonly RecordingOutput _wire = new();
        private readonly PacketBatch _toEstablished = TunnelPair.Batch(TunnelPair.IPv4Packet(LocalAddress, EstablishedAddress));
        private readonly PacketBatch _fromEstablished = TunnelPair.Batch(TunnelPair.IPv4Packet(EstablishedAddress, LocalAddress));

        public Storm(int peers, WireGuardKey[] initiatorKeys, TunnelCrypto responderCrypto)
        {
            var responderKey = WireGuardKey.GeneratePrivateKey();
            var establishedKey = WireGuardKey.GeneratePrivateKey();
            var idle = WireGuardConfigParser.Parse(ManyPeers.Text(responderKey, peers - initiatorKeys.Length - 1)).Peers;
            var stormPeers = initiatorKeys.Select((key, i) => new PeerConfiguration
            {
                PublicKey = key.DerivePublicKey(),
                AllowedIps = [new IPPrefix(Address(i), 32)],
                Endpoint = new IPEndPoint(Address(i), 51820),
            });
            Responder = new TunnelEngine(
                new TunnelConfiguration
                {
                    PrivateKey = responderKey,
                    Peers = [.. idle, .. stormPeers, new PeerConfiguration { PublicKey = establishedKey.DerivePublicKey(), AllowedIps = [IPPrefix.Parse(EstablishedAddress + "/32")], Endpoint = s_establishedSource.ToIPEndPoint() }],
                },
                crypto: responderCrypto);
            _established = new TunnelEngine(new TunnelConfiguration
            {
                PrivateKey = establishedKey,
                Peers = [new PeerConfiguration { PublicKey = Responder.PublicKey!, AllowedIps = [IPPrefix.Parse("0.0.0.0/0")], Endpoint = s_responderSource.ToIPEndPoint() }],
            });
            Initiators = [.. initiatorKeys.Select((key, i) => new StormInitiator(key, Responder.PublicKey!, (uint)i + 1, DatagramAddress.FromIPEndPoint(new IPEndPoint(Address(i), 51820)), TimeProvider.System))];

            _established.SendPackets(_fromEstablished, _wire);
            for (var round = 0; round < 3; round++)
            {
                CarryWire();
            }

            Assert.NotNull(Responder.CurrentKeypairOf(establishedKey.DerivePublicKey()));
        }

        public TunnelEngine Responder { get; }

        public StormInitiator[] Initiators { get; }

        /// <summary>One packet from the established peer and one to it; returns how many the responder delivered and sent.</summary>
        public (int Delivered, int Sent) CarryOnePacketEachWay()
        {
            var toResponder = new RecordingOutput();
            _established.SendPackets(_fromEstablished, toResponder);
            var delivered = new RecordingOutput();
            foreach (var (bytes, _) in toResponder.TakeDatagrams())
            {
                Responder.ReceiveDatagram(bytes, s_establishedSource, delivered);
            }

            var sent = new RecordingOutput();
            Responder.SendPackets(_toEstablished, sent);
            return (delivered.Packets.Count, sent.Datagrams.Count(d => MessageLayout.Classify(d.Bytes) == MessageType.Transport));
        }

        public void Dispose()
        {
            Responder.Dispose();
            _established.Dispose();
        }

        /// <summary>Storm initiator i's address, in 100.64.0.0/10 (apart from the idle peers' 198.18.0.0/15).</summary>
        private static IPAddress Address(int i) => new([100, (byte)(64 + (i >> 16)), (byte)(i >> 8), (byte)i]);

        private void CarryWire()
        {
            var fromEstablished = _wire.TakeDatagrams();
            var back = new RecordingOutput();
            foreach (var (bytes, _) in fromEstablished)
            {
                Responder.ReceiveDatagram(bytes, s_establishedSource, back);
            }

            foreach (var (bytes, _) in back.TakeDatagrams())
            {
                _established.ReceiveDatagram(bytes, s_responderSource, _wire);
            }
        }
    }
}
