using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// Sixteen ChaCha20 states at once in AVX-512 registers: lane i of each of the sixteen state vectors is packet i's
/// state word, every lane at the same block counter and each with its own nonce. A block of all sixteen lanes is
/// transposed (unpacks, then 128-bit shuffles) so each packet's 64 bytes of keystream come out contiguous.
/// </summary>
internal static class ChaCha20Lanes16
{
    /// <summary>Packets one call serves.</summary>
    public const int Lanes = 16;

    /// <summary>Whether this CPU runs the lanes in hardware (AVX-512F); checked once, at start.</summary>
    public static bool IsSupported { get; } = Avx512F.IsSupported && Vector512.IsHardwareAccelerated;

    /// <summary>
    /// Writes block <paramref name="counter"/> of every lane's keystream to <paramref name="keystream"/>, lane i's 64
    /// bytes at i * 64. <paramref name="nonceColumns"/> holds the nonces word-major: 16 first words, then 16 second
    /// words, then 16 third words.
    /// </summary>
    // Crypto kernels run fully optimized from the first call: at tier 0 nothing is inlined, and the scalar path measured 5x slower a 1,420-byte packet.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Block(ReadOnlySpan<uint> key, ReadOnlySpan<uint> nonceColumns, uint counter, Span<byte> keystream)
    {
        if (nonceColumns.Length < 3 * Lanes || keystream.Length < Lanes * ChaCha20.BlockSize || key.Length < 8)
        {
            throw new ArgumentException("Sixteen lanes need 48 nonce words, 8 key words and 1,024 bytes of keystream.", nameof(keystream));
        }

        var k0 = Vector512.Create(key[0]);
        var k1 = Vector512.Create(key[1]);
        var k2 = Vector512.Create(key[2]);
        var k3 = Vector512.Create(key[3]);
        var k4 = Vector512.Create(key[4]);
        var k5 = Vector512.Create(key[5]);
        var k6 = Vector512.Create(key[6]);
        var k7 = Vector512.Create(key[7]);
        var n0 = Vector512.Create(nonceColumns[..Lanes]);
        var n1 = Vector512.Create(nonceColumns.Slice(Lanes, Lanes));
        var n2 = Vector512.Create(nonceColumns.Slice(2 * Lanes, Lanes));
        var c = Vector512.Create(counter);

        Vector512<uint> x0 = Vector512.Create(ChaCha20.Constant0), x1 = Vector512.Create(ChaCha20.Constant1);
        Vector512<uint> x2 = Vector512.Create(ChaCha20.Constant2), x3 = Vector512.Create(ChaCha20.Constant3);
        Vector512<uint> x4 = k0, x5 = k1, x6 = k2, x7 = k3, x8 = k4, x9 = k5, x10 = k6, x11 = k7;
        Vector512<uint> x12 = c, x13 = n0, x14 = n1, x15 = n2;
        for (var round = 0; round < 10; round++)
        {
            QuarterRound(ref x0, ref x4, ref x8, ref x12);
            QuarterRound(ref x1, ref x5, ref x9, ref x13);
            QuarterRound(ref x2, ref x6, ref x10, ref x14);
            QuarterRound(ref x3, ref x7, ref x11, ref x15);
            QuarterRound(ref x0, ref x5, ref x10, ref x15);
            QuarterRound(ref x1, ref x6, ref x11, ref x12);
            QuarterRound(ref x2, ref x7, ref x8, ref x13);
            QuarterRound(ref x3, ref x4, ref x9, ref x14);
        }

        x0 += Vector512.Create(ChaCha20.Constant0);
        x1 += Vector512.Create(ChaCha20.Constant1);
        x2 += Vector512.Create(ChaCha20.Constant2);
        x3 += Vector512.Create(ChaCha20.Constant3);
        x4 += k0;
        x5 += k1;
        x6 += k2;
        x7 += k3;
        x8 += k4;
        x9 += k5;
        x10 += k6;
        x11 += k7;
        x12 += c;
        x13 += n0;
        x14 += n1;
        x15 += n2;

        // Safety: keystream was checked above to hold 1,024 bytes, one 64-byte block per lane, and the stores below write
        // exactly those blocks.
        ref var output = ref MemoryMarshal.GetReference(keystream);
        // Rows 0-3, 4-7, 8-11, 12-15 each become four vectors whose 128-bit lane k holds those four words of packet
        // 4k + j (j the vector's index); the shuffles then gather one packet's four groups into one vector.
        Interleave(x0, x1, x2, x3, out var a0, out var a1, out var a2, out var a3);
        Interleave(x4, x5, x6, x7, out var b0, out var b1, out var b2, out var b3);
        Interleave(x8, x9, x10, x11, out var c0, out var c1, out var c2, out var c3);
        Interleave(x12, x13, x14, x15, out var d0, out var d1, out var d2, out var d3);
        Gather(a0, b0, c0, d0, ref output, 0);
        Gather(a1, b1, c1, d1, ref output, 1);
        Gather(a2, b2, c2, d2, ref output, 2);
        Gather(a3, b3, c3, d3, ref output, 3);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Interleave(
        Vector512<uint> w, Vector512<uint> x, Vector512<uint> y, Vector512<uint> z,
        out Vector512<uint> j0, out Vector512<uint> j1, out Vector512<uint> j2, out Vector512<uint> j3)
    {
        var wxLow = Avx512F.UnpackLow(w, x).AsUInt64();
        var wxHigh = Avx512F.UnpackHigh(w, x).AsUInt64();
        var yzLow = Avx512F.UnpackLow(y, z).AsUInt64();
        var yzHigh = Avx512F.UnpackHigh(y, z).AsUInt64();
        j0 = Avx512F.UnpackLow(wxLow, yzLow).AsUInt32();
        j1 = Avx512F.UnpackHigh(wxLow, yzLow).AsUInt32();
        j2 = Avx512F.UnpackLow(wxHigh, yzHigh).AsUInt32();
        j3 = Avx512F.UnpackHigh(wxHigh, yzHigh).AsUInt32();
    }

    /// <summary>Stores packets j, 4 + j, 8 + j and 12 + j from the four row groups' vectors j.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Gather(Vector512<uint> a, Vector512<uint> b, Vector512<uint> c, Vector512<uint> d, ref byte output, int j)
    {
        // vshufi32x4: lanes 0-1 from the first operand, 2-3 from the second; 0x88 picks lanes 0 and 2 of each, 0xDD 1 and 3.
        var abEven = Avx512F.Shuffle4x128(a, b, 0x88);
        var abOdd = Avx512F.Shuffle4x128(a, b, 0xDD);
        var cdEven = Avx512F.Shuffle4x128(c, d, 0x88);
        var cdOdd = Avx512F.Shuffle4x128(c, d, 0xDD);
        Avx512F.Shuffle4x128(abEven, cdEven, 0x88).AsByte().StoreUnsafe(ref output, (nuint)(j * ChaCha20.BlockSize));
        Avx512F.Shuffle4x128(abOdd, cdOdd, 0x88).AsByte().StoreUnsafe(ref output, (nuint)((4 + j) * ChaCha20.BlockSize));
        Avx512F.Shuffle4x128(abEven, cdEven, 0xDD).AsByte().StoreUnsafe(ref output, (nuint)((8 + j) * ChaCha20.BlockSize));
        Avx512F.Shuffle4x128(abOdd, cdOdd, 0xDD).AsByte().StoreUnsafe(ref output, (nuint)((12 + j) * ChaCha20.BlockSize));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void QuarterRound(ref Vector512<uint> a, ref Vector512<uint> b, ref Vector512<uint> c, ref Vector512<uint> d)
    {
        a += b;
        d = Avx512F.RotateLeft(d ^ a, 16);
        c += d;
        b = Avx512F.RotateLeft(b ^ c, 12);
        a += b;
        d = Avx512F.RotateLeft(d ^ a, 8);
        c += d;
        b = Avx512F.RotateLeft(b ^ c, 7);
    }
}
