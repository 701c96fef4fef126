using System.Buffers.Binary;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// TAI64N timestamps (12 bytes: big-endian seconds since 1970 plus 2^62 + 10, then big-endian nanoseconds),
/// which the initiation carries so a responder can refuse a replayed one.
/// </summary>
internal static class Tai64N
{
    /// <summary>Bytes in a timestamp.</summary>
    public const int Size = 12;

    /// <summary>2^62 marks the TAI64 epoch label; 10 is the TAI-UTC offset of 1970 that TAI64 labels carry.</summary>
    private const ulong Base = (1UL << 62) + 10;

    /// <summary>
    /// Nanoseconds are rounded down to a multiple of 2^24 (about 16.8 ms), as the reference implementations do, so the
    /// timestamp is no fine-grained clock for an observer who can decrypt it later.
    /// </summary>
    private const uint WhitenerMask = (1u << 24) - 1;

    /// <summary>Writes the timestamp of <paramref name="time"/>.</summary>
    public static void Write(DateTimeOffset time, Span<byte> destination)
    {
        var unixNanoseconds = (time.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) * 100;
        var seconds = (ulong)(unixNanoseconds / 1_000_000_000);
        var nanoseconds = (uint)(unixNanoseconds % 1_000_000_000) & ~WhitenerMask;
        BinaryPrimitives.WriteUInt64BigEndian(destination, Base + seconds);
        BinaryPrimitives.WriteUInt32BigEndian(destination[8..], nanoseconds);
    }

    /// <summary>Whether <paramref name="candidate"/> is strictly later than <paramref name="last"/> (big-endian bytes compare in time order).</summary>
    public static bool IsAfter(ReadOnlySpan<byte> candidate, ReadOnlySpan<byte> last) =>
        candidate[..Size].SequenceCompareTo(last[..Size]) > 0;
}
