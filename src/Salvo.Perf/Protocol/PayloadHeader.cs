using System.Buffers.Binary;

namespace Salvo.Perf.Protocol;

/// <summary>What a datagram is for.</summary>
internal enum PayloadKind : byte
{
    /// <summary>A one-way test datagram (server/client).</summary>
    Data = 0,

    /// <summary>A request of the rr test.</summary>
    Request = 1,

    /// <summary>A response of the rr test (echoes the request's header).</summary>
    Response = 2,
}

/// <summary>Why a datagram was not a valid test datagram.</summary>
internal enum HeaderError
{
    /// <summary>Valid.</summary>
    None = 0,

    /// <summary>Shorter than <see cref="PayloadHeader.Size"/>.</summary>
    TooShort,

    /// <summary>The first four bytes are not "SLVO".</summary>
    BadMagic,

    /// <summary>A version this build does not speak.</summary>
    BadVersion,

    /// <summary>An unknown <see cref="PayloadKind"/>.</summary>
    BadKind,
}

/// <summary>
/// The 24-byte header at the start of every test datagram, big-endian (network order):
/// <code>
///  0  4  magic "SLVO" (0x534C564F)
///  4  1  version (1)
///  5  1  kind (0 data, 1 request, 2 response)
///  6  2  flow id
///  8  8  sequence number, from 0 per flow
/// 16  8  send time in nanoseconds on the sender's monotonic clock (only differences are meaningful)
/// </code>
/// The rest of the datagram is filler. A receiver counts datagrams that fail <see cref="TryRead"/> as
/// malformed and goes on.
/// </summary>
/// <param name="Kind">What the datagram is for.</param>
/// <param name="FlowId">Which flow (or rr slot) it belongs to.</param>
/// <param name="Sequence">Its number within the flow.</param>
/// <param name="SendTimeNanoseconds">When it was (or, at a fixed rate, should have been) sent.</param>
internal readonly record struct PayloadHeader(PayloadKind Kind, ushort FlowId, ulong Sequence, long SendTimeNanoseconds)
{
    /// <summary>Header bytes; the smallest valid test datagram.</summary>
    public const int Size = 24;

    /// <summary>"SLVO" read as a big-endian integer.</summary>
    public const uint Magic = 0x534C564F;

    /// <summary>The header version written and accepted.</summary>
    public const byte Version = 1;

    /// <summary>Writes the header into the first <see cref="Size"/> bytes of <paramref name="destination"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than <see cref="Size"/>.</exception>
    public void Write(Span<byte> destination)
    {
        if (destination.Length < Size)
        {
            throw new ArgumentException($"A test datagram needs at least {Size} bytes for its header.", nameof(destination));
        }

        BinaryPrimitives.WriteUInt32BigEndian(destination, Magic);
        destination[4] = Version;
        destination[5] = (byte)Kind;
        BinaryPrimitives.WriteUInt16BigEndian(destination[6..], FlowId);
        BinaryPrimitives.WriteUInt64BigEndian(destination[8..], Sequence);
        BinaryPrimitives.WriteInt64BigEndian(destination[16..], SendTimeNanoseconds);
    }

    /// <summary>Reads and validates a header; never throws on bad input.</summary>
    public static HeaderError TryRead(ReadOnlySpan<byte> datagram, out PayloadHeader header)
    {
        header = default;
        if (datagram.Length < Size)
        {
            return HeaderError.TooShort;
        }

        if (BinaryPrimitives.ReadUInt32BigEndian(datagram) != Magic)
        {
            return HeaderError.BadMagic;
        }

        if (datagram[4] != Version)
        {
            return HeaderError.BadVersion;
        }

        if (datagram[5] > (byte)PayloadKind.Response)
        {
            return HeaderError.BadKind;
        }

        header = new PayloadHeader(
            (PayloadKind)datagram[5],
            BinaryPrimitives.ReadUInt16BigEndian(datagram[6..]),
            BinaryPrimitives.ReadUInt64BigEndian(datagram[8..]),
            BinaryPrimitives.ReadInt64BigEndian(datagram[16..]));
        return HeaderError.None;
    }
}
