using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>XOR of byte runs, the widest vector the hardware has first: how keystream meets data.</summary>
internal static class Bytes
{
    /// <summary>
    /// Writes <paramref name="left"/> XOR <paramref name="right"/> to <paramref name="output"/>, all of one length;
    /// <paramref name="output"/> may be the same memory as either input.
    /// </summary>
    public static void Xor(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right, Span<byte> output)
    {
        if (left.Length != output.Length || right.Length != output.Length)
        {
            throw new ArgumentException("The runs to XOR differ in length.", nameof(output));
        }

        // Safety: the three runs were just checked to be one length, and every load and store below reads or writes
        // whole vectors or words only while i plus their width is at most that length.
        ref var l = ref MemoryMarshal.GetReference(left);
        ref var r = ref MemoryMarshal.GetReference(right);
        ref var o = ref MemoryMarshal.GetReference(output);
        var length = (nuint)output.Length;

        nuint i = 0;
        if (Vector512.IsHardwareAccelerated)
        {
            for (; i + 64 <= length; i += 64)
            {
                (Vector512.LoadUnsafe(ref l, i) ^ Vector512.LoadUnsafe(ref r, i)).StoreUnsafe(ref o, i);
            }
        }

        for (; i + 32 <= length; i += 32)
        {
            (Vector256.LoadUnsafe(ref l, i) ^ Vector256.LoadUnsafe(ref r, i)).StoreUnsafe(ref o, i);
        }

        for (; i + 8 <= length; i += 8)
        {
            var value = MemoryMarshal.Read<ulong>(MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref l, i), 8)) ^
                MemoryMarshal.Read<ulong>(MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref r, i), 8));
            MemoryMarshal.Write(MemoryMarshal.CreateSpan(ref Unsafe.Add(ref o, i), 8), value);
        }

        for (; i < length; i++)
        {
            Unsafe.Add(ref o, i) = (byte)(Unsafe.Add(ref l, i) ^ Unsafe.Add(ref r, i));
        }
    }
}
