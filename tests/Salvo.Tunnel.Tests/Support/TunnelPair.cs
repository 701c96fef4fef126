using System.Buffers.Binary;
using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Two engines, Alice (198.19.0.1) and Bob (198.19.0.2), joined by an in-memory wire under one fake clock.
/// Alice knows Bob's endpoint; Bob learns Alice's from her handshake.
/// </summary>
internal sealed class TunnelPair : IDisposable
{
    public static readonly IPEndPoint AliceEndpoint = new(IPAddress.Loopback, 51001);
    public static readonly IPEndPoint BobEndpoint = new(IPAddress.Loopback, 51002);

    public TunnelPair(TimeSpan? alicePersistentKeepalive = null, WireGuardKey? presharedKey = null, Microsoft.Extensions.Logging.ILogger? bobLogger = null)
    {
        AliceKey = WireGuardKey.GeneratePrivateKey();
        BobKey = WireGuardKey.GeneratePrivateKey();
        Alice = CreateAlice(alicePersistentKeepalive, presharedKey);
        Bob = new TunnelEngine(
            new TunnelConfiguration
            {
                PrivateKey = BobKey,
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = AliceKey.DerivePublicKey(),
                        PresharedKey = presharedKey,
                        AllowedIps = [IPPrefix.Parse("198.19.0.1/32")],
                    },
                ],
            },
            Clock,
            jitter: new Random(2),
            logger: bobLogger);
    }

    public ManualClock Clock { get; } = new();

    /// <summary>Another engine with Alice's key and configuration, as if she restarted: its initiations are new ones.</summary>
    public TunnelEngine CreateAlice(TimeSpan? persistentKeepalive = null, WireGuardKey? presharedKey = null) => new(
        new TunnelConfiguration
        {
            PrivateKey = AliceKey,
            Peers =
            [
                new PeerConfiguration
                {
                    PublicKey = BobKey.DerivePublicKey(),
                    PresharedKey = presharedKey,
                    AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                    Endpoint = BobEndpoint,
                    PersistentKeepalive = persistentKeepalive,
                },
            ],
        },
        Clock,
        jitter: new Random(1));

    public WireGuardKey AliceKey { get; }

    public WireGuardKey BobKey { get; }

    public TunnelEngine Alice { get; }

    public TunnelEngine Bob { get; }

    public RecordingOutput AliceOut { get; } = new();

    public RecordingOutput BobOut { get; } = new();

    /// <summary>Where Bob sees Alice's datagrams come from; tests change it to model roaming.</summary>
    public DatagramAddress AliceSource { get; set; } = DatagramAddress.FromIPEndPoint(AliceEndpoint);

    /// <summary>A minimal IPv4 packet (20-byte header, then <paramref name="payloadLength"/> bytes).</summary>
    public static byte[] IPv4Packet(string source, string destination, int payloadLength = 8)
    {
        var packet = new byte[20 + payloadLength];
        packet[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        packet[8] = 64;
        packet[9] = 17;
        IPAddress.Parse(source).TryWriteBytes(packet.AsSpan(12), out _);
        IPAddress.Parse(destination).TryWriteBytes(packet.AsSpan(16), out _);
        for (var i = 20; i < packet.Length; i++)
        {
            packet[i] = (byte)i;
        }

        return packet;
    }

    public static PacketBatch Batch(params byte[][] packets)
    {
        var batch = new PacketBatch(Math.Max(1, packets.Length), 2048);
        foreach (var packet in packets)
        {
            batch.TryAdd(packet);
        }

        return batch;
    }

    public void AliceSends(byte[] packet) => Alice.SendPackets(Batch(packet), AliceOut);

    public void BobSends(byte[] packet) => Bob.SendPackets(Batch(packet), BobOut);

    /// <summary>Carries datagrams both ways until the wire is quiet (at most 20 rounds); returns how many crossed.</summary>
    public int Exchange()
    {
        var crossed = 0;
        for (var round = 0; round < 20; round++)
        {
            var fromAlice = AliceOut.TakeDatagrams();
            var fromBob = BobOut.TakeDatagrams();
            if (fromAlice.Count == 0 && fromBob.Count == 0)
            {
                return crossed;
            }

            foreach (var (bytes, _) in fromAlice)
            {
                Bob.ReceiveDatagram(bytes, AliceSource, BobOut);
            }

            foreach (var (bytes, _) in fromBob)
            {
                Alice.ReceiveDatagram(bytes, DatagramAddress.FromIPEndPoint(BobEndpoint), AliceOut);
            }

            crossed += fromAlice.Count + fromBob.Count;
        }

        throw new InvalidOperationException("The engines kept talking for 20 rounds.");
    }

    /// <summary>Completes a handshake and the key confirmation: Alice sends one packet that Bob delivers.</summary>
    public void Connect()
    {
        AliceSends(IPv4Packet("198.19.0.1", "198.19.0.2"));
        Exchange();
        BobOut.Packets.Clear();
    }

    /// <summary>Connects and lets Bob answer, so neither side has data waiting for a reply; clears both outputs.</summary>
    public void ConnectBothWays()
    {
        Connect();
        BobSends(IPv4Packet("198.19.0.2", "198.19.0.1"));
        Exchange();
        AliceOut.Packets.Clear();
        AliceOut.Datagrams.Clear();
        BobOut.Datagrams.Clear();
    }

    public void Dispose()
    {
        Alice.Dispose();
        Bob.Dispose();
    }
}
