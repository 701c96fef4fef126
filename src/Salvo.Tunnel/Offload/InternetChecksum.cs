using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit big-endian words.
/// Sums are carried in a 64-bit accumulator and folded once at the end, so a 1,400-byte segment costs one pass of
/// 8-byte loads (RFC 1071 section 2(B): the sum may be taken over wider words and folded, byte order aside).
/// </summary>
internal static class InternetChecksum
{
    /// <summary>Adds <paramref name="data"/> to <paramref name="sum"/>, as 16-bit big-endian words (an odd last byte is the high half of a word).</summary>
    public static ulong Add(ReadOnlySpan<byte> data, ulong sum)
    {
        // Words are summed in the machine's order and swapped once at the end: the ones' complement sum commutes with
        // byte swapping (RFC 1071 section 2(B)), and 8-byte loads cost one instruction per four words.
        ulong native = 0;
        var longs = MemoryMarshal.Cast<byte, ulong>(data);
        foreach (var word in longs)
        {
            native += word;
            if (native < word)
            {
                native++;
            }
        }

        var rest = data[(longs.Length * 8)..];
        ulong tail = 0;
        var i = 0;
        for (; i + 1 < rest.Length; i += 2)
        {
            tail += MemoryMarshal.Read<ushort>(rest[i..]);
        }

        if (i < rest.Length)
        {
            tail += BitConverter.IsLittleEndian ? rest[i] : (ulong)rest[i] << 8;
        }

        var folded = Fold32(native) + Fold32(tail);
        var machineOrder = (ushort)Fold16(folded);
        return sum + (BitConverter.IsLittleEndian ? BinaryPrimitives.ReverseEndianness(machineOrder) : machineOrder);
    }

    /// <summary>Adds the pseudo-header of RFC 793 / RFC 768 (IPv4) or RFC 8200 section 8.1 (IPv6): both addresses, the protocol and the layer-4 length.</summary>
    public static ulong AddPseudoHeader(ReadOnlySpan<byte> source, ReadOnlySpan<byte> destination, byte protocol, int layer4Length, ulong sum) =>
        Add(destination, Add(source, sum)) + protocol + (ulong)layer4Length;

    /// <summary>The 16-bit ones' complement sum of <paramref name="sum"/>, not complemented (what a partial checksum field holds).</summary>
    public static ushort Fold(ulong sum) => (ushort)Fold16(sum);

    /// <summary>The checksum to write: the complement of the folded sum.</summary>
    public static ushort Finish(ulong sum) => (ushort)~Fold16(sum);

    private static ulong Fold32(ulong sum)
    {
        sum = (sum & 0xFFFF_FFFF) + (sum >> 32);
        return (sum & 0xFFFF_FFFF) + (sum >> 32);
    }

    private static ulong Fold16(ulong sum)
    {
        sum = Fold32(sum);
        while (sum > 0xFFFF)
        {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }

        return sum;
    }
}
