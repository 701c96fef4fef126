using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// The Poly1305 one-time authenticator of RFC 8439 section 2.5 as the AEAD construction uses it (section 2.8): every
/// input run is padded with zeros to whole 16-byte blocks, so every block carries the 2^128 bit. The accumulator is
/// three limbs of 44, 44 and 42 bits, so each product of a limb and a key limb (times 20 at most, below 2^47) fits in a
/// 64x64->128 multiply with room for three of them summed (2^91 each); <see cref="Math.BigMul(ulong, ulong, out ulong)"/>
/// gives the 128-bit product in one instruction (mulx) on x64.
/// </summary>
internal struct Poly1305
{
    /// <summary>Bytes of the one-time key (r then s) and of the tag.</summary>
    public const int KeySize = 32, TagSize = 16;

    private const ulong Mask44 = (1UL << 44) - 1, Mask42 = (1UL << 42) - 1;

    private readonly ulong _r0, _r1, _r2, _s1, _s2, _pad0, _pad1;
    private ulong _h0, _h1, _h2;

    /// <summary>Starts an authenticator under the 32-byte one-time <paramref name="key"/>.</summary>
    public Poly1305(ReadOnlySpan<byte> key)
    {
        var t0 = BinaryPrimitives.ReadUInt64LittleEndian(key);
        var t1 = BinaryPrimitives.ReadUInt64LittleEndian(key[8..]);
        // r is clamped (section 2.5: the top four bits of bytes 3, 7, 11, 15 and the low two of 4, 8, 12 cleared),
        // folded into the same 44/44/42 limbs as the accumulator.
        _r0 = t0 & 0xffc0fffffff;
        _r1 = ((t0 >> 44) | (t1 << 20)) & 0xfffffc0ffff;
        _r2 = (t1 >> 24) & 0x00ffffffc0f;
        // 2^130 = 5 mod p, and a limb product past bit 132 is shifted down by 44 twice: hence 5 * 4 = 20.
        _s1 = _r1 * 20;
        _s2 = _r2 * 20;
        _pad0 = BinaryPrimitives.ReadUInt64LittleEndian(key[16..]);
        _pad1 = BinaryPrimitives.ReadUInt64LittleEndian(key[24..]);
        _h0 = _h1 = _h2 = 0;
    }

    /// <summary>Absorbs <paramref name="data"/>, its last partial block padded with zeros to 16 bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void UpdatePadded(ReadOnlySpan<byte> data)
    {
        // The accumulator and key in locals for the loop: the struct has too many fields for the JIT to keep in registers.
        ulong h0 = _h0, h1 = _h1, h2 = _h2;
        ulong r0 = _r0, r1 = _r1, r2 = _r2, s1 = _s1, s2 = _s2;
        var whole = data.Length & ~15;
        for (var i = 0; i < whole; i += 16)
        {
            var block = data.Slice(i, 16);
            Block(ref h0, ref h1, ref h2, r0, r1, r2, s1, s2, BinaryPrimitives.ReadUInt64LittleEndian(block), BinaryPrimitives.ReadUInt64LittleEndian(block[8..]));
        }

        if (whole < data.Length)
        {
            Span<byte> last = stackalloc byte[16];
            last.Clear();
            data[whole..].CopyTo(last);
            Block(ref h0, ref h1, ref h2, r0, r1, r2, s1, s2, BinaryPrimitives.ReadUInt64LittleEndian(last), BinaryPrimitives.ReadUInt64LittleEndian(last[8..]));
        }

        _h0 = h0;
        _h1 = h1;
        _h2 = h2;
    }

    /// <summary>Absorbs the final block of the AEAD construction: the two lengths as 64-bit little-endian numbers.</summary>
    public void UpdateLengths(int associatedDataLength, int ciphertextLength) =>
        Block(ref _h0, ref _h1, ref _h2, _r0, _r1, _r2, _s1, _s2, (ulong)associatedDataLength, (ulong)ciphertextLength);

    /// <summary>Writes the 16-byte tag: the accumulator reduced mod 2^130 - 5, plus s, mod 2^128.</summary>
    public readonly void Finish(Span<byte> tag)
    {
        ulong h0 = _h0, h1 = _h1, h2 = _h2;
        var c = h1 >> 44;
        h1 &= Mask44;
        h2 += c;
        c = h2 >> 42;
        h2 &= Mask42;
        h0 += c * 5;
        c = h0 >> 44;
        h0 &= Mask44;
        h1 += c;
        c = h1 >> 44;
        h1 &= Mask44;
        h2 += c;
        c = h2 >> 42;
        h2 &= Mask42;
        h0 += c * 5;
        c = h0 >> 44;
        h0 &= Mask44;
        h1 += c;

        // h - p = h + 5 - 2^130: take it where it does not go negative, without a branch on secret data.
        var g0 = h0 + 5;
        c = g0 >> 44;
        g0 &= Mask44;
        var g1 = h1 + c;
        c = g1 >> 44;
        g1 &= Mask44;
        var g2 = h2 + c - (1UL << 42);
        var useG = (g2 >> 63) - 1;
        h0 = (h0 & ~useG) | (g0 & useG);
        h1 = (h1 & ~useG) | (g1 & useG);
        h2 = (h2 & ~useG) | (g2 & useG);

        h0 += _pad0 & Mask44;
        c = h0 >> 44;
        h0 &= Mask44;
        h1 += (((_pad0 >> 44) | (_pad1 << 20)) & Mask44) + c;
        c = h1 >> 44;
        h1 &= Mask44;
        h2 += ((_pad1 >> 24) & Mask42) + c;
        h2 &= Mask42;

        BinaryPrimitives.WriteUInt64LittleEndian(tag, h0 | (h1 << 44));
        BinaryPrimitives.WriteUInt64LittleEndian(tag[8..], (h1 >> 20) | (h2 << 24));
    }

    /// <summary>h = (h + block + 2^128) * r mod 2^130 - 5, partly reduced (limbs may exceed their width by a few bits).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Block(ref ulong h0, ref ulong h1, ref ulong h2, ulong r0, ulong r1, ulong r2, ulong s1, ulong s2, ulong t0, ulong t1)
    {
        var a0 = h0 + (t0 & Mask44);
        var a1 = h1 + (((t0 >> 44) | (t1 << 20)) & Mask44);
        var a2 = h2 + (((t1 >> 24) & Mask42) | (1UL << 40));

        var d0High = Math.BigMul(a0, r0, out var d0);
        MultiplyAdd(ref d0, ref d0High, a1, s2);
        MultiplyAdd(ref d0, ref d0High, a2, s1);
        var d1High = Math.BigMul(a0, r1, out var d1);
        MultiplyAdd(ref d1, ref d1High, a1, r0);
        MultiplyAdd(ref d1, ref d1High, a2, s2);
        var d2High = Math.BigMul(a0, r2, out var d2);
        MultiplyAdd(ref d2, ref d2High, a1, r1);
        MultiplyAdd(ref d2, ref d2High, a2, r0);

        var c = (d0 >> 44) | (d0High << 20);
        var n0 = d0 & Mask44;
        d1 += c;
        d1High += d1 < c ? 1UL : 0;
        c = (d1 >> 44) | (d1High << 20);
        var n1 = d1 & Mask44;
        d2 += c;
        d2High += d2 < c ? 1UL : 0;
        c = (d2 >> 42) | (d2High << 22);
        h2 = d2 & Mask42;
        n0 += c * 5;
        c = n0 >> 44;
        h0 = n0 & Mask44;
        h1 = n1 + c;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void MultiplyAdd(ref ulong low, ref ulong high, ulong a, ulong b)
    {
        var productHigh = Math.BigMul(a, b, out var productLow);
        low += productLow;
        high += productHigh + (low < productLow ? 1UL : 0);
    }
}
