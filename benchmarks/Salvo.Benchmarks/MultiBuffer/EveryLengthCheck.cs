using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// The candidate against OpenSSL (<see cref="PlatformAead"/>) at every plaintext length from 0 to 65,535 bytes, each
/// at least once: the lengths are shuffled and dealt into batches of 1 to <see cref="MaxPackets"/> packets (so every
/// length meets full vector groups, a partial group and batches below a group's minimum, beside other lengths), each
/// batch under its own random key, nonces and associated data. Every packet is sealed by both and compared byte for
/// byte, ciphertext and tag; the candidate opens what OpenSSL sealed back to the plaintext; then every packet's tag has
/// one bit flipped and the candidate must refuse every one. <see cref="CandidateCheck"/> covers the RFC vectors and
/// single forgeries in the body or associated data; this covers the lengths.
/// </summary>
internal static class EveryLengthCheck
{
    /// <summary>The largest plaintext checked: the largest a 16-bit IP length can describe, beyond any tunnel packet.</summary>
    public const int LargestLength = 65_535;

    private const int TagSize = AeadPacket.TagSize;

    /// <summary>Most packets in one batch: two groups of 16 lanes and a remainder, as in <see cref="CandidateCheck"/>.</summary>
    private const int MaxPackets = 40;

    /// <summary>
    /// The lengths checked with <paramref name="stride"/> 1: all of 0 to 65,535. A larger stride keeps every
    /// multiple of it, all lengths up to 256 (every position in the first four 64-byte ChaCha20 blocks and sixteen
    /// Poly1305 blocks) and the last 64 (the largest ones), for a run short enough for a unit test.
    /// </summary>
    public static int[] Lengths(int stride)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(stride, 1);
        return [.. Enumerable.Range(0, LargestLength + 1).Where(length => length % stride == 0 || length <= 256 || length > LargestLength - 64)];
    }

    /// <summary>Null where the candidate agrees at every length given; otherwise what differed first, with the seed to repeat it.</summary>
    public static string? FirstDifference(AeadCandidate candidate, IAead openSsl, IReadOnlyList<int> lengths, int seed)
    {
        ArgumentNullException.ThrowIfNull(candidate);
        ArgumentNullException.ThrowIfNull(openSsl);
        ArgumentNullException.ThrowIfNull(lengths);
        var random = new Random(seed);
        var order = lengths.ToArray();
        random.Shuffle(order);
        var batch = 0;
        for (var start = 0; start < order.Length; batch++)
        {
            var count = Math.Min(random.Next(1, MaxPackets + 1), order.Length - start);
            if (CheckBatch(candidate, openSsl, order.AsSpan(start, count), random) is { } difference)
            {
                return $"batch {batch} of seed {seed}: {difference}";
            }

            start += count;
        }

        return null;
    }

    private static string? CheckBatch(AeadCandidate candidate, IAead openSsl, ReadOnlySpan<int> batchLengths, Random random)
    {
        var count = batchLengths.Length;
        using var batch = SealedBatch.Create(candidate, openSsl, batchLengths.ToArray(), random);
        var (buffer, expected, plain, packets, nonces, key) = (batch.Buffer, batch.Expected, batch.Plain, batch.Packets, batch.Nonces, batch.Key);
        if (CandidateCheck.FirstDifferingPacket(buffer, expected, packets, TagSize) is { } sealIndex)
        {
            return $"a {packets[sealIndex].Length}-byte packet ({sealIndex} of {count}) seals differently from OpenSSL";
        }

        var opened = new bool[count];
        var work = (byte[])expected.Clone();
        if (CandidateCheck.Open(key, candidate.Batch, work, packets, nonces, opened) != count)
        {
            var refused = Math.Max(0, Array.IndexOf(opened, false));
            return $"a {packets[refused].Length}-byte packet ({refused} of {count}) sealed by OpenSSL is refused";
        }

        if (CandidateCheck.FirstDifferingPacket(work, plain, packets, 0) is { } openIndex)
        {
            return $"a {packets[openIndex].Length}-byte packet ({openIndex} of {count}) opens to other bytes than OpenSSL sealed";
        }

        work = (byte[])expected.Clone();
        foreach (var packet in packets)
        {
            work[packet.Offset + packet.Length + random.Next(TagSize)] ^= (byte)(1 << random.Next(8));
        }

        var authentic = CandidateCheck.Open(key, candidate.Batch, work, packets, nonces, opened);
        if (authentic != 0)
        {
            var accepted = Math.Max(0, Array.IndexOf(opened, true));
            return $"a {packets[accepted].Length}-byte packet ({accepted} of {count}) opens with a tampered tag";
        }

        return null;
    }
}
