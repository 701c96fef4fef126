using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit big-endian words.
/// Sums are carried in 64-bit accumulators and folded once at the end, so a 1,400-byte segment costs one vector pass.
/// </summary>
internal static class InternetChecksum
{
    /// <summary>Adds <paramref name="data"/> to <paramref name="sum"/>, as 16-bit big-endian words (an odd last byte is the high half of a word).</summary>
    public static ulong Add(ReadOnlySpan<byte> data, ulong sum)
    {
        // 32-bit words are summed in the machine's order into 64-bit lanes, which cannot overflow below 2^32 words,
        // and folded and swapped once at the end: the ones' complement sum commutes with byte swapping, and 2^16 is 1
        // modulo 0xFFFF, so a 32-bit word counts as its two 16-bit halves (RFC 1071 sections 2(A) and 2(B)). With
        // 256-bit vectors that is three instructions per 32 bytes; the scalar loop costs a branch per 8 bytes.
        ulong native = 0;
        var offset = 0;
        if (Vector256.IsHardwareAccelerated && data.Length >= 64)
        {
            var low = Vector256<ulong>.Zero;
            var high = Vector256<ulong>.Zero;
            ref var start = ref MemoryMarshal.GetReference(data);
            for (; offset + 32 <= data.Length; offset += 32)
            {
                var words = Vector256.LoadUnsafe(ref Unsafe.As<byte, uint>(ref Unsafe.Add(ref start, offset)));
                var (lower, upper) = Vector256.Widen(words);
                low += lower;
                high += upper;
            }

            native = Vector256.Sum(low) + Vector256.Sum(high);
        }

        var rest = data[offset..];
        var i = 0;
        for (; i + 4 <= rest.Length; i += 4)
        {
            native += MemoryMarshal.Read<uint>(rest[i..]);
        }

        for (; i + 1 < rest.Length; i += 2)
        {
            native += MemoryMarshal.Read<ushort>(rest[i..]);
        }

        if (i < rest.Length)
        {
            native += BitConverter.IsLittleEndian ? rest[i] : (ulong)rest[i] << 8;
        }

        var machineOrder = (ushort)Fold16(native);
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
