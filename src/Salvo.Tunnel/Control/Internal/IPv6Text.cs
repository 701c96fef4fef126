using System.Buffers.Binary;

namespace Salvo.Tunnel.Control;

/// <summary>
/// An IPv6 address as ASCII without an <see cref="System.Net.IPAddress"/>: RFC 5952's form, the one .NET and <c>wg</c>
/// show (lowercase hex without leading zeros, the longest run of two or more zero groups, the first of equals, as
/// <c>::</c>). A million-peer <c>wg show dump</c> made an address object and its group array per IPv6 AllowedIP.
/// </summary>
internal static class IPv6Text
{
    /// <summary>The longest form: eight groups of four digits and seven colons.</summary>
    public const int MaxBytes = 39;

    private static ReadOnlySpan<byte> HexDigits => "0123456789abcdef"u8;

    /// <summary>
    /// Writes <paramref name="address"/> (16 bytes); false, writing nothing, for the forms .NET shows with an IPv4
    /// tail (first four groups zero: IPv4-compatible and -mapped; or a 0:5efe ISATAP interface identifier), which the
    /// caller formats through <see cref="System.Net.IPAddress"/> so the text stays what it was.
    /// </summary>
    public static bool TryWrite(ReadOnlySpan<byte> address, Span<byte> destination, out int written)
    {
        written = 0;
        Span<ushort> groups = stackalloc ushort[8];
        for (var i = 0; i < 8; i++)
        {
            groups[i] = BinaryPrimitives.ReadUInt16BigEndian(address[(2 * i)..]);
        }

        if ((groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 0) || groups[5] == 0x5EFE)
        {
            return false;
        }

        var (gapStart, gapLength) = LongestZeroRun(groups);
        var at = 0;
        for (var i = 0; i < 8; i++)
        {
            if (i == gapStart)
            {
                destination[at++] = (byte)':';
                destination[at++] = (byte)':';
                i += gapLength - 1;
                continue;
            }

            if (i > 0 && i != gapStart + gapLength)
            {
                destination[at++] = (byte)':';
            }

            at += Hex(destination[at..], groups[i]);
        }

        written = at;
        return true;
    }

    /// <summary>Where the longest run of at least two zero groups starts (-1 when none) and how long it is.</summary>
    private static (int Start, int Length) LongestZeroRun(ReadOnlySpan<ushort> groups)
    {
        var bestStart = -1;
        var bestLength = 1;
        var runLength = 0;
        for (var i = 0; i < groups.Length; i++)
        {
            runLength = groups[i] == 0 ? runLength + 1 : 0;
            if (runLength > bestLength)
            {
                bestLength = runLength;
                bestStart = i - runLength + 1;
            }
        }

        return bestStart < 0 ? (-1, 0) : (bestStart, bestLength);
    }

    private static int Hex(Span<byte> destination, ushort value)
    {
        var at = 0;
        for (var shift = 12; shift >= 0; shift -= 4)
        {
            var digit = (value >> shift) & 0xF;
            if (digit != 0 || at > 0 || shift == 0)
            {
                destination[at++] = HexDigits[digit];
            }
        }

        return at;
    }
}
