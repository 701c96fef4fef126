using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// The ChaCha20 stream cipher of RFC 8439 section 2.4 in plain scalar code, one 64-byte block at a time: the reference
/// the multi-buffer lanes (<see cref="ChaCha20Lanes16"/>, <see cref="ChaCha20Lanes8"/>) are checked against, and the
/// path for a batch too small to fill them.
/// </summary>
internal static class ChaCha20
{
    /// <summary>Bytes of keystream one block gives.</summary>
    public const int BlockSize = 64;

    /// <summary>"expand 32-byte k" as four little-endian words (RFC 8439 section 2.3).</summary>
    public const uint Constant0 = 0x61707865, Constant1 = 0x3320646e, Constant2 = 0x79622d32, Constant3 = 0x6b206574;

    /// <summary>Reads a 32-byte key as the eight little-endian words the state holds.</summary>
    public static void ReadKey(ReadOnlySpan<byte> key, Span<uint> words)
    {
        for (var i = 0; i < 8; i++)
        {
            words[i] = BinaryPrimitives.ReadUInt32LittleEndian(key[(i * 4)..]);
        }
    }

    /// <summary>Writes the keystream block of <paramref name="counter"/> to <paramref name="output"/> (64 bytes).</summary>
    // Crypto kernels run fully optimized from the first call: at tier 0 nothing is inlined, and the scalar path measured 5x slower a 1,420-byte packet.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Block(ReadOnlySpan<uint> key, ReadOnlySpan<byte> nonce, uint counter, Span<byte> output)
    {
        var n0 = BinaryPrimitives.ReadUInt32LittleEndian(nonce);
        var n1 = BinaryPrimitives.ReadUInt32LittleEndian(nonce[4..]);
        var n2 = BinaryPrimitives.ReadUInt32LittleEndian(nonce[8..]);
        uint x0 = Constant0, x1 = Constant1, x2 = Constant2, x3 = Constant3;
        uint x4 = key[0], x5 = key[1], x6 = key[2], x7 = key[3], x8 = key[4], x9 = key[5], x10 = key[6], x11 = key[7];
        uint x12 = counter, x13 = n0, x14 = n1, x15 = n2;
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

        BinaryPrimitives.WriteUInt32LittleEndian(output, x0 + Constant0);
        BinaryPrimitives.WriteUInt32LittleEndian(output[4..], x1 + Constant1);
        BinaryPrimitives.WriteUInt32LittleEndian(output[8..], x2 + Constant2);
        BinaryPrimitives.WriteUInt32LittleEndian(output[12..], x3 + Constant3);
        BinaryPrimitives.WriteUInt32LittleEndian(output[16..], x4 + key[0]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[20..], x5 + key[1]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[24..], x6 + key[2]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[28..], x7 + key[3]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[32..], x8 + key[4]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[36..], x9 + key[5]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[40..], x10 + key[6]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[44..], x11 + key[7]);
        BinaryPrimitives.WriteUInt32LittleEndian(output[48..], x12 + counter);
        BinaryPrimitives.WriteUInt32LittleEndian(output[52..], x13 + n0);
        BinaryPrimitives.WriteUInt32LittleEndian(output[56..], x14 + n1);
        BinaryPrimitives.WriteUInt32LittleEndian(output[60..], x15 + n2);
    }

    /// <summary>
    /// XORs the keystream from block <paramref name="counter"/> on into <paramref name="input"/>, writing
    /// <paramref name="output"/>, which may be the same memory.
    /// </summary>
    public static void Xor(ReadOnlySpan<uint> key, ReadOnlySpan<byte> nonce, uint counter, ReadOnlySpan<byte> input, Span<byte> output)
    {
        Span<byte> keystream = stackalloc byte[BlockSize];
        for (var done = 0; done < input.Length; done += BlockSize, counter++)
        {
            Block(key, nonce, counter, keystream);
            var length = Math.Min(BlockSize, input.Length - done);
            Bytes.Xor(input.Slice(done, length), keystream[..length], output.Slice(done, length));
        }

        keystream.Clear();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void QuarterRound(ref uint a, ref uint b, ref uint c, ref uint d)
    {
        a += b;
        d = BitOperations.RotateLeft(d ^ a, 16);
        c += d;
        b = BitOperations.RotateLeft(b ^ c, 12);
        a += b;
        d = BitOperations.RotateLeft(d ^ a, 8);
        c += d;
        b = BitOperations.RotateLeft(b ^ c, 7);
    }
}
