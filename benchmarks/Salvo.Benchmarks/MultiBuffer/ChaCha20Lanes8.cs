using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// Eight ChaCha20 states at once in AVX2 registers, as <see cref="ChaCha20Lanes16"/> does sixteen: lane i of each state
/// vector is packet i's word. Rows 0-7 and 8-15 are each transposed as an 8x8 block (unpacks, then 128-bit
/// permutes), giving each packet its first and second 32 bytes of keystream.
/// </summary>
internal static class ChaCha20Lanes8
{
    /// <summary>Packets one call serves.</summary>
    public const int Lanes = 8;

    /// <summary>Whether this CPU runs the lanes in hardware (AVX2); checked once, at start.</summary>
    public static bool IsSupported { get; } = Avx2.IsSupported && Vector256.IsHardwareAccelerated;

    /// <summary>
    /// Writes block <paramref name="counter"/> of every lane's keystream to <paramref name="keystream"/>, lane i's 64
    /// bytes at i * 64. <paramref name="nonceColumns"/> holds the nonces word-major: 8 first words, 8 second, 8 third.
    /// </summary>
    // Crypto kernels run fully optimized from the first call: at tier 0 nothing is inlined, and the scalar path measured 5x slower a 1,420-byte packet.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Block(ReadOnlySpan<uint> key, ReadOnlySpan<uint> nonceColumns, uint counter, Span<byte> keystream)
    {
        if (nonceColumns.Length < 3 * Lanes || keystream.Length < Lanes * ChaCha20.BlockSize || key.Length < 8)
        {
            throw new ArgumentException("Eight lanes need 24 nonce words, 8 key words and 512 bytes of keystream.", nameof(keystream));
        }

        var k0 = Vector256.Create(key[0]);
        var k1 = Vector256.Create(key[1]);
        var k2 = Vector256.Create(key[2]);
        var k3 = Vector256.Create(key[3]);
        var k4 = Vector256.Create(key[4]);
        var k5 = Vector256.Create(key[5]);
        var k6 = Vector256.Create(key[6]);
        var k7 = Vector256.Create(key[7]);
        var n0 = Vector256.Create(nonceColumns[..Lanes]);
        var n1 = Vector256.Create(nonceColumns.Slice(Lanes, Lanes));
        var n2 = Vector256.Create(nonceColumns.Slice(2 * Lanes, Lanes));
        var c = Vector256.Create(counter);

        Vector256<uint> x0 = Vector256.Create(ChaCha20.Constant0), x1 = Vector256.Create(ChaCha20.Constant1);
        Vector256<uint> x2 = Vector256.Create(ChaCha20.Constant2), x3 = Vector256.Create(ChaCha20.Constant3);
        Vector256<uint> x4 = k0, x5 = k1, x6 = k2, x7 = k3, x8 = k4, x9 = k5, x10 = k6, x11 = k7;
        Vector256<uint> x12 = c, x13 = n0, x14 = n1, x15 = n2;
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

        // Safety: keystream was checked above to hold 512 bytes, one 64-byte block per lane, and the stores below write
        // exactly those blocks.
        ref var output = ref MemoryMarshal.GetReference(keystream);
        Transpose(
            x0 + Vector256.Create(ChaCha20.Constant0), x1 + Vector256.Create(ChaCha20.Constant1),
            x2 + Vector256.Create(ChaCha20.Constant2), x3 + Vector256.Create(ChaCha20.Constant3),
            x4 + k0, x5 + k1, x6 + k2, x7 + k3, ref output, 0);
        Transpose(x8 + k4, x9 + k5, x10 + k6, x11 + k7, x12 + c, x13 + n0, x14 + n1, x15 + n2, ref output, 32);
    }

    /// <summary>Stores rows r0-r7 (words <paramref name="half"/> / 4 on) as each packet's 32 bytes at packet * 64 + half.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Transpose(
        Vector256<uint> r0, Vector256<uint> r1, Vector256<uint> r2, Vector256<uint> r3,
        Vector256<uint> r4, Vector256<uint> r5, Vector256<uint> r6, Vector256<uint> r7, ref byte output, int half)
    {
        Interleave(r0, r1, r2, r3, out var a0, out var a1, out var a2, out var a3);
        Interleave(r4, r5, r6, r7, out var b0, out var b1, out var b2, out var b3);
        // vperm2i128: 0x20 joins the two low 128-bit lanes (packet j), 0x31 the two high ones (packet 4 + j).
        Store(Avx2.Permute2x128(a0, b0, 0x20), ref output, half);
        Store(Avx2.Permute2x128(a1, b1, 0x20), ref output, ChaCha20.BlockSize + half);
        Store(Avx2.Permute2x128(a2, b2, 0x20), ref output, (2 * ChaCha20.BlockSize) + half);
        Store(Avx2.Permute2x128(a3, b3, 0x20), ref output, (3 * ChaCha20.BlockSize) + half);
        Store(Avx2.Permute2x128(a0, b0, 0x31), ref output, (4 * ChaCha20.BlockSize) + half);
        Store(Avx2.Permute2x128(a1, b1, 0x31), ref output, (5 * ChaCha20.BlockSize) + half);
        Store(Avx2.Permute2x128(a2, b2, 0x31), ref output, (6 * ChaCha20.BlockSize) + half);
        Store(Avx2.Permute2x128(a3, b3, 0x31), ref output, (7 * ChaCha20.BlockSize) + half);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Store(Vector256<uint> value, ref byte output, int offset) => value.AsByte().StoreUnsafe(ref output, (nuint)offset);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Interleave(
        Vector256<uint> w, Vector256<uint> x, Vector256<uint> y, Vector256<uint> z,
        out Vector256<uint> j0, out Vector256<uint> j1, out Vector256<uint> j2, out Vector256<uint> j3)
    {
        var wxLow = Avx2.UnpackLow(w, x).AsUInt64();
        var wxHigh = Avx2.UnpackHigh(w, x).AsUInt64();
        var yzLow = Avx2.UnpackLow(y, z).AsUInt64();
        var yzHigh = Avx2.UnpackHigh(y, z).AsUInt64();
        j0 = Avx2.UnpackLow(wxLow, yzLow).AsUInt32();
        j1 = Avx2.UnpackHigh(wxLow, yzLow).AsUInt32();
        j2 = Avx2.UnpackLow(wxHigh, yzHigh).AsUInt32();
        j3 = Avx2.UnpackHigh(wxHigh, yzHigh).AsUInt32();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void QuarterRound(ref Vector256<uint> a, ref Vector256<uint> b, ref Vector256<uint> c, ref Vector256<uint> d)
    {
        a += b;
        d = RotateLeft(d ^ a, 16);
        c += d;
        b = RotateLeft(b ^ c, 12);
        a += b;
        d = RotateLeft(d ^ a, 8);
        c += d;
        b = RotateLeft(b ^ c, 7);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<uint> RotateLeft(Vector256<uint> value, [ConstantExpected] byte count)
    {
        if (Avx512F.VL.IsSupported)
        {
            return Avx512F.VL.RotateLeft(value, count);
        }

        // Whole-byte rotations are one byte shuffle (vpshufb) instead of two shifts and an OR.
        if (count == 16)
        {
            return Avx2.Shuffle(value.AsByte(), Vector256.Create((byte)2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)).AsUInt32();
        }

        if (count == 8)
        {
            return Avx2.Shuffle(value.AsByte(), Vector256.Create((byte)3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14)).AsUInt32();
        }

        return Vector256.ShiftLeft(value, count) | Vector256.ShiftRightLogical(value, 32 - count);
    }
}
