using System.Buffers.Binary;

namespace Salvo.Pal;

/// <summary>
/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit words. The sum is
/// taken over little-endian words 8 bytes at a time and byte-swapped once at the end, which RFC 1071 section 2(B)
/// shows gives the same result as summing network-order words.
/// </summary>
internal static class InternetChecksum
{
    /// <summary>Adds <paramref name="data"/> to a running sum (little-endian words; an odd last byte padded with zero).</summary>
    public static ulong Add(ulong sum, ReadOnlySpan<byte> data)
    {
        while (data.Length >= 8)
        {
            var value = BinaryPrimitives.ReadUInt64LittleEndian(data);
            sum += (value & 0xFFFF_FFFF) + (value >> 32);
            data = data[8..];
        }

        if (data.Length >= 4)
        {
            sum += BinaryPrimitives.ReadUInt32LittleEndian(data);
            data = data[4..];
        }

        if (data.Length >= 2)
        {
            sum += BinaryPrimitives.ReadUInt16LittleEndian(data);
            data = data[2..];
        }

        if (data.Length == 1)
        {
            sum += data[0];
        }

        return sum;
    }

    /// <summary>Adds a 16-bit field given in host order, as it would appear in network order in the data.</summary>
    public static ulong AddWord(ulong sum, int networkValue) => sum + BinaryPrimitives.ReverseEndianness((ushort)networkValue);

    /// <summary>The checksum of a finished sum, in host order, ready to be written big-endian into its field.</summary>
    public static ushort Finish(ulong sum)
    {
        while ((sum >> 16) != 0)
        {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }

        return BinaryPrimitives.ReverseEndianness((ushort)~sum);
    }
}
