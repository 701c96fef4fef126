using System.Buffers.Binary;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>Why bytes are not a sockperf message.</summary>
internal enum SockperfHeaderError
{
    /// <summary>A valid header.</summary>
    None = 0,

    /// <summary>Fewer than <see cref="SockperfHeader.Size"/> bytes.</summary>
    TooShort,

    /// <summary>A flag bit sockperf does not define.</summary>
    UnknownFlags,

    /// <summary>The length field is below the header size or above <see cref="SockperfHeader.MaxMessage"/>.</summary>
    BadLength,
}

/// <summary>
/// The header that starts every sockperf message, 14 bytes, big-endian (sockperf 3.x, <c>MsgHeader</c>
/// with its <c>EFFECTIVE_SIZE</c>; confirmed on the wire against the Debian sockperf 3.7 binary):
/// <code>
///  0  8  sequence number (the client counts from 1)
///  8  2  flags: 1 client, 2 pong request, 4 warm-up
/// 10  4  message length in bytes, header included
/// </code>
/// The rest of the message is filler the server sends back unchanged. Over TCP the length field frames
/// the stream; over UDP it equals the datagram's length.
/// </summary>
/// <param name="Sequence">The client's message number.</param>
/// <param name="Flags">What the message is and whether it wants an answer.</param>
/// <param name="Length">Bytes in the whole message.</param>
internal readonly record struct SockperfHeader(ulong Sequence, SockperfFlags Flags, int Length)
{
    /// <summary>Header bytes; also the smallest message (sockperf's default --msg-size is 14).</summary>
    public const int Size = 14;

    /// <summary>The largest message sockperf sends or accepts (its MAX_PAYLOAD_SIZE: 65,535 - 28 bytes of IPv4 and UDP headers).</summary>
    public const int MaxMessage = 65_507;

    /// <summary>Offset of the flags field.</summary>
    public const int FlagsOffset = 8;

    /// <summary>Whether a client sent it.</summary>
    public bool IsClient => (Flags & SockperfFlags.Client) != 0;

    /// <summary>Whether the sender wants it back.</summary>
    public bool IsPongRequest => (Flags & SockperfFlags.PongRequest) != 0;

    /// <summary>Whether it is a warm-up message.</summary>
    public bool IsWarmup => (Flags & SockperfFlags.Warmup) != 0;

    /// <summary>Reads and checks a header from the start of <paramref name="message"/>; never throws on bad input.</summary>
    public static SockperfHeaderError TryRead(ReadOnlySpan<byte> message, out SockperfHeader header)
    {
        header = default;
        if (message.Length < Size)
        {
            return SockperfHeaderError.TooShort;
        }

        var flags = BinaryPrimitives.ReadUInt16BigEndian(message[FlagsOffset..]);
        if ((flags & ~(ushort)SockperfFlags.Known) != 0)
        {
            return SockperfHeaderError.UnknownFlags;
        }

        var length = BinaryPrimitives.ReadUInt32BigEndian(message[10..]);
        if (length is < Size or > MaxMessage)
        {
            return SockperfHeaderError.BadLength;
        }

        header = new SockperfHeader(BinaryPrimitives.ReadUInt64BigEndian(message), (SockperfFlags)flags, (int)length);
        return SockperfHeaderError.None;
    }

    /// <summary>Writes the header into the first <see cref="Size"/> bytes of <paramref name="destination"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <see cref="Size"/>.</exception>
    public void Write(Span<byte> destination)
    {
        if (destination.Length < Size)
        {
            throw new ArgumentException($"A sockperf message needs at least {Size} bytes for its header.", nameof(destination));
        }

        BinaryPrimitives.WriteUInt64BigEndian(destination, Sequence);
        BinaryPrimitives.WriteUInt16BigEndian(destination[FlagsOffset..], (ushort)Flags);
        BinaryPrimitives.WriteUInt32BigEndian(destination[10..], (uint)Length);
    }
}
