using System.Buffers.Binary;
using System.Net;
using Salvo.Tunnel.Protocol;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// Transport data through the engine's datagram receive, after a real handshake. The first byte picks what the rest
/// is: 0, an inner packet that Alice's session key seals (so it authenticates and Bob's checks of the decrypted
/// packet, its IP header and its source against AllowedIPs, see fuzzed bytes); 1, a mask XORed over Alice's real
/// transport datagram (header, counter, ciphertext and tag) before Bob takes it.
/// </summary>
public sealed class WireGuardDataTarget : IFuzzTarget
{
    public string Name => "wg-data";

    public string Description => "WireGuard transport data through TunnelEngine.ReceiveDatagram, sealed or masked";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        using var pair = new WireGuardPair();
        var first = pair.Connect();
        var datagram = input[0] % 2 == 0 ? Seal(pair, input[1..]) : WireGuardPair.Mask(first, input[1..]);
        pair.Bob.ReceiveDatagram(datagram, WireGuardPair.AliceSource, pair.BobOut);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        var ipv6 = new byte[48];
        ipv6[0] = 0x60;
        BinaryPrimitives.WriteUInt16BigEndian(ipv6.AsSpan(4), 8);
        ipv6[6] = 17;
        ipv6[7] = 64;
        IPAddress.Parse("fd00::1").TryWriteBytes(ipv6.AsSpan(8), out _);
        IPAddress.Parse("fd00::2").TryWriteBytes(ipv6.AsSpan(24), out _);
        yield return ("sealed-ipv4", [0, .. WireGuardPair.IPv4Packet("198.19.0.1", "198.19.0.2", 16)]);
        yield return ("sealed-ipv6", [0, .. ipv6]);
        yield return ("sealed-keepalive", [0]);
        yield return ("sealed-foreign-source", [0, .. WireGuardPair.IPv4Packet("10.9.9.9", "198.19.0.2", 4)]);
        yield return ("masked-valid", [1]);
        yield return ("masked-counter", [1, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    }

    /// <summary>A transport message holding <paramref name="packet"/>, sealed with Alice's current key for Bob.</summary>
    internal static byte[] Seal(WireGuardPair pair, ReadOnlySpan<byte> packet)
    {
        var keypair = pair.Alice.CurrentKeypairOf(pair.Bob.PublicKey!)!;
        keypair.TryTakeSendCounter(out var counter);
        var message = new byte[MessageLayout.TransportHeaderSize + packet.Length + MessageLayout.TagSize];
        MessageLayout.WriteType(message, MessageType.Transport);
        MessageLayout.WriteIndex(message, MessageLayout.TransportReceiver, keypair.RemoteIndex);
        BinaryPrimitives.WriteUInt64LittleEndian(message.AsSpan(MessageLayout.TransportCounter), counter);
        Span<byte> nonce = stackalloc byte[12];
        MessageLayout.WriteNonce(nonce, counter);
        keypair.Send.Seal(nonce, [], packet, message.AsSpan(MessageLayout.TransportHeaderSize));
        return message;
    }
}
