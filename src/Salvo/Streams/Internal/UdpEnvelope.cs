using System.Buffers.Binary;

namespace Salvo.Streams;

/// <summary>
/// The first byte of every datagram a <see cref="MessageTransport"/> sends says what it is, so that a message can
/// never be mistaken for a handshake: 0x00 then the message; 0x01 HELLO then an 8-byte nonce; 0x02 HELLO-ACK then
/// the nonce of the HELLO it answers. Anything else is dropped and counted.
/// </summary>
internal static class UdpEnvelope
{
    public const byte Data = 0x00;
    public const byte Hello = 0x01;
    public const byte HelloAck = 0x02;
    public const int HeaderLength = 1;
    public const int HandshakeLength = 1 + sizeof(ulong);

    /// <summary>The largest message one datagram carries: 65,507 bytes of UDP payload over IPv4, less the type byte.</summary>
    public const int MaxMessageSize = SendBatch.DefaultMaxDatagramSize - HeaderLength;

    public static void CheckMessageLength(int length)
    {
        if (length > MaxMessageSize)
        {
            throw new ArgumentOutOfRangeException(
                "message", length, $"A message over UDP carries at most {MaxMessageSize} bytes; this one has {length}.");
        }
    }

    /// <summary>A random 64-bit handshake nonce, without an allocation.</summary>
    public static ulong NewNonce()
    {
        Span<byte> bytes = stackalloc byte[sizeof(ulong)];
        System.Security.Cryptography.RandomNumberGenerator.Fill(bytes);
        return BitConverter.ToUInt64(bytes);
    }

    public static void WriteHandshake(Span<byte> destination, byte type, ulong nonce)
    {
        destination[0] = type;
        BinaryPrimitives.WriteUInt64BigEndian(destination[1..], nonce);
    }

    public static bool TryReadHandshake(ReadOnlySpan<byte> datagram, byte type, out ulong nonce)
    {
        nonce = 0;
        if (datagram.Length != HandshakeLength || datagram[0] != type)
        {
            return false;
        }

        nonce = BinaryPrimitives.ReadUInt64BigEndian(datagram[1..]);
        return true;
    }
}
