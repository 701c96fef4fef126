using System.Buffers.Binary;

namespace Salvo.Tests;

/// <summary>
/// Test datagrams that prove their own integrity: an 8-byte sequence number, a 4-byte FNV-1a checksum of
/// the body, and a body derived from the sequence number, with a length that varies by sequence.
/// </summary>
internal static class SequencedPayload
{
    public const int HeaderLength = 12;

    public static int LengthFor(long sequence) => HeaderLength + (int)(sequence * 7919 % 1389);

    public static void Write(Span<byte> destination, long sequence)
    {
        BinaryPrimitives.WriteInt64LittleEndian(destination, sequence);
        var body = destination[HeaderLength..];
        for (var i = 0; i < body.Length; i++)
        {
            body[i] = (byte)(sequence + (i * 31));
        }

        BinaryPrimitives.WriteUInt32LittleEndian(destination[8..], Fnv1a(body));
    }

    /// <summary>Returns the sequence number, or -1 if the datagram is damaged in any way.</summary>
    public static long Verify(ReadOnlySpan<byte> datagram)
    {
        if (datagram.Length < HeaderLength)
        {
            return -1;
        }

        var sequence = BinaryPrimitives.ReadInt64LittleEndian(datagram);
        if (sequence < 0 || datagram.Length != LengthFor(sequence))
        {
            return -1;
        }

        var body = datagram[HeaderLength..];
        if (BinaryPrimitives.ReadUInt32LittleEndian(datagram[8..]) != Fnv1a(body))
        {
            return -1;
        }

        for (var i = 0; i < body.Length; i++)
        {
            if (body[i] != (byte)(sequence + (i * 31)))
            {
                return -1;
            }
        }

        return sequence;
    }

    private static uint Fnv1a(ReadOnlySpan<byte> data)
    {
        var hash = 2166136261u;
        foreach (var b in data)
        {
            hash = (hash ^ b) * 16777619u;
        }

        return hash;
    }
}
