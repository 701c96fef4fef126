using System.Buffers.Binary;
using System.Net;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Routing;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// Two real engines with fixed keys under a fixed clock, Alice (198.19.0.1, initiator) and Bob (198.19.0.2), made fresh
/// for each input so that no state carries from one input to the next. The targets feed their datagrams through
/// <see cref="TunnelEngine.ReceiveDatagram"/>, the path a datagram from the UDP socket takes.
/// </summary>
internal sealed class WireGuardPair : IDisposable
{
    public static readonly IPEndPoint AliceEndpoint = new(IPAddress.Loopback, 51001);
    public static readonly IPEndPoint BobEndpoint = new(IPAddress.Loopback, 51002);

    private static readonly WireGuardKey s_aliceKey = FixedKey(0x11);
    private static readonly WireGuardKey s_bobKey = FixedKey(0x22);
    private static readonly WireGuardKey s_presharedKey = WireGuardKey.FromBytes(Enumerable.Repeat((byte)0x33, WireGuardKey.Size).ToArray());

    public WireGuardPair()
    {
        var crypto = TunnelCrypto.Default with { KeyAgreement = new SeededKeyAgreement(TunnelCrypto.Default.KeyAgreement) };
        Alice = new TunnelEngine(Configuration(s_aliceKey, s_bobKey, "198.19.0.2/32", BobEndpoint), Clock, crypto, new Random(1));
        Bob = new TunnelEngine(Configuration(s_bobKey, s_aliceKey, "198.19.0.1/32", endpoint: null), Clock, crypto, new Random(2));
    }

    public FixedClock Clock { get; } = new();

    public TunnelEngine Alice { get; }

    public TunnelEngine Bob { get; }

    public CapturingOutput AliceOut { get; } = new();

    public CapturingOutput BobOut { get; } = new();

    public static DatagramAddress AliceSource => DatagramAddress.FromIPEndPoint(AliceEndpoint);

    public static DatagramAddress BobSource => DatagramAddress.FromIPEndPoint(BobEndpoint);

    /// <summary>Alice's initiation, as she sends it for her first packet to Bob.</summary>
    public byte[] AliceInitiation()
    {
        Alice.SendPackets(Batch(IPv4Packet("198.19.0.1", "198.19.0.2", 8)), AliceOut);
        return AliceOut.Take().Single();
    }

    /// <summary>Bob's answer to Alice's initiation (a response, or a cookie reply while Bob is under load).</summary>
    public byte[] BobAnswer(byte[] initiation)
    {
        Bob.ReceiveDatagram(initiation, AliceSource, BobOut);
        return BobOut.Take().Single();
    }

    /// <summary>Completes the handshake; returns Alice's first transport datagram (the packet that waited).</summary>
    public byte[] Connect()
    {
        var response = BobAnswer(AliceInitiation());
        Alice.ReceiveDatagram(response, BobSource, AliceOut);
        return AliceOut.Take().Single();
    }

    /// <summary>A minimal IPv4 packet: a 20-byte header, then <paramref name="payloadLength"/> bytes.</summary>
    public static byte[] IPv4Packet(string source, string destination, int payloadLength)
    {
        var packet = new byte[20 + payloadLength];
        packet[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        packet[8] = 64;
        packet[9] = 17;
        IPAddress.Parse(source).TryWriteBytes(packet.AsSpan(12), out _);
        IPAddress.Parse(destination).TryWriteBytes(packet.AsSpan(16), out _);
        return packet;
    }

    /// <summary>Writes <paramref name="mask"/> over <paramref name="message"/> by XOR; mask bytes past its end are appended.</summary>
    public static byte[] Mask(byte[] message, ReadOnlySpan<byte> mask)
    {
        var result = new byte[Math.Max(message.Length, mask.Length)];
        message.CopyTo(result, 0);
        for (var i = 0; i < mask.Length; i++)
        {
            result[i] ^= mask[i];
        }

        return result;
    }

    public void Dispose()
    {
        Alice.Dispose();
        Bob.Dispose();
    }

    private static PacketBatch Batch(byte[] packet)
    {
        var batch = new PacketBatch(1, 2048);
        batch.TryAdd(packet);
        return batch;
    }

    private static WireGuardKey FixedKey(byte fill)
    {
        var bytes = Enumerable.Repeat(fill, WireGuardKey.Size).ToArray();
        WireGuardKey.Clamp(bytes);
        return WireGuardKey.FromBytes(bytes);
    }

    private static TunnelConfiguration Configuration(WireGuardKey own, WireGuardKey peer, string allowed, IPEndPoint? endpoint) => new()
    {
        PrivateKey = own,
        Peers =
        [
            new PeerConfiguration
            {
                PublicKey = peer.DerivePublicKey(),
                PresharedKey = s_presharedKey,
                AllowedIps = [IPPrefix.Parse(allowed), IPPrefix.Parse("fd00::/64")],
                Endpoint = endpoint,
            },
        ],
    };
}
