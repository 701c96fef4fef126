using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using Salvo.Benchmarks.MultiBuffer;
using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks;

/// <summary>
/// Seal and open cost per packet of one size (1,420 B, the tunnel MTU, by default) for the tunnel's cipher today
/// (OpenSSL through <see cref="PlatformAead"/>, one packet a call), the scalar managed ChaCha20-Poly1305, and the
/// multi-buffer one in batches of 8 (AVX2) and 16 (AVX-512) packets. The candidates run in interleaved rounds (each
/// round times every candidate once, in turn), so load from other processes falls on all alike; the report is each
/// candidate's median and its ratio to OpenSSL's median; then the scalar Poly1305 tag alone, which the multi-buffer
/// cipher computes per packet. The managed ciphers are an experiment kept here, not in the tunnel (see
/// docs/benchmarks.md, "Multi-buffer ChaCha20-Poly1305"); every candidate is checked first (<see cref="CandidateCheck"/>)
/// and the run stops, naming it, if one is wrong.
/// Usage: aead-batch [--verify-only] [rounds=7] [bytes=1420] [packets per round=20000]
/// </summary>
internal static class AeadBatchComparison
{
    private const int TagSize = AeadPacket.TagSize;
    private const int BatchSize = 16;

    public static int Run(string[] args)
    {
        var verifyOnly = args.Contains("--verify-only");
        args = [.. args.Where(arg => arg != "--verify-only")];
        var rounds = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 7;
        var size = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 1_420;
        var packets = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 20_000;
        packets = (packets + BatchSize - 1) / BatchSize * BatchSize;

        var openSslAead = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("No platform ChaCha20-Poly1305 here (Linux with libcrypto.so.3).");
        var candidates = AeadCandidate.Available(openSslAead);

        // A fresh seed each run, printed with any difference so that it can be repeated.
        var seed = Random.Shared.Next();
        var wrong = 0;
        foreach (var candidate in candidates)
        {
            if (CandidateCheck.FirstDifference(candidate, openSslAead, seed) is { } difference)
            {
                Console.Error.WriteLine($"{candidate.Name} is wrong, so its figures would mean nothing: {difference}");
                wrong++;
            }
        }

        if (wrong > 0)
        {
            return 1;
        }

        Console.WriteLine(
            $"verified: {string.Join(", ", candidates.Select(candidate => candidate.Name))} match RFC 8439 2.8.2 and A.5 and " +
            $"OpenSSL on random batches (seed {seed}); lanes: AVX-512 {ChaCha20Lanes16.IsSupported}, AVX2 {ChaCha20Lanes8.IsSupported}");
        if (verifyOnly)
        {
            return 0;
        }

        var keyBytes = RandomNumberGenerator.GetBytes(32);
        var keys = candidates.Select(candidate => candidate.CreateKey(keyBytes)).ToArray();
        var stride = size + TagSize;
        var buffer = GC.AllocateUninitializedArray<byte>(BatchSize * stride, pinned: true);
        RandomNumberGenerator.Fill(buffer);
        var batch = Enumerable.Range(0, BatchSize).Select(i => new AeadPacket(i * stride, size)).ToArray();
        var nonces = new byte[BatchSize * 12];
        var opened = new bool[BatchSize];
        RandomNumberGenerator.Fill(nonces);

        var seal = candidates.Select(_ => new List<double>()).ToArray();
        var open = candidates.Select(_ => new List<double>()).ToArray();
        for (var round = -1; round < rounds; round++)
        {
            for (var c = 0; c < candidates.Count; c++)
            {
                var key = keys[c];
                var batchSize = candidates[c].Batch;
                var packetBatch = batch.AsSpan(0, batchSize);
                var nonceBatch = nonces.AsSpan(0, batchSize * 12);
                var watch = Stopwatch.StartNew();
                for (var done = 0; done < packets; done += batchSize)
                {
                    SealOrOpen(key, buffer, packetBatch, nonceBatch, opened, seal: true);
                }

                var sealNs = watch.Elapsed.TotalNanoseconds / packets;
                watch.Restart();
                for (var done = 0; done < packets; done += batchSize)
                {
                    // The packets were sealed in place under these nonces just before the last seal loop ended, so each
                    // open after the first fails its tag; a failed tag costs the tag's work without the decryption,
                    // so the buffer is sealed afresh first and every open here authenticates.
                    SealOrOpen(key, buffer, packetBatch, nonceBatch, opened, seal: true);
                    SealOrOpen(key, buffer, packetBatch, nonceBatch, opened, seal: false);
                }

                var bothNs = watch.Elapsed.TotalNanoseconds / packets;
                if (round >= 0)
                {
                    seal[c].Add(sealNs);
                    open[c].Add(bothNs - sealNs);
                }
            }
        }

        // Poly1305 alone (the scalar per-packet tag both managed ciphers compute), timed after the rounds above: the part of
        // the multi-buffer cost that its vector lanes do not touch.
        var polyKey = RandomNumberGenerator.GetBytes(Poly1305.KeySize);
        var tag = new byte[TagSize];
        var poly = new List<double>();
        for (var round = -1; round < rounds; round++)
        {
            var watch = Stopwatch.StartNew();
            for (var done = 0; done < packets; done++)
            {
                ManagedChaCha20Poly1305.ComputeTag(polyKey, [], buffer.AsSpan(0, size), tag);
            }

            if (round >= 0)
            {
                poly.Add(watch.Elapsed.TotalNanoseconds / packets);
            }
        }

        Console.WriteLine(FormattableString.Invariant($"ChaCha20-Poly1305 per {size:N0}-byte packet, {packets:N0} packets a round, median of {rounds} interleaved rounds"));
        Console.WriteLine($"{"cipher",-26} {"seal ns",9} {"x openssl",10} {"open ns",9} {"x openssl",10}");
        var sealBase = Median(seal[0]);
        var openBase = Median(open[0]);
        for (var c = 0; c < candidates.Count; c++)
        {
            var s = Median(seal[c]);
            var o = Median(open[c]);
            Console.WriteLine(FormattableString.Invariant($"{candidates[c].Name,-26} {s,9:F0} {s / sealBase,10:F2} {o,9:F0} {o / openBase,10:F2}"));
        }

        var p = Median(poly);
        Console.WriteLine(FormattableString.Invariant($"{"of which scalar Poly1305",-26} {p,9:F0} {p / sealBase,10:F2}"));
        foreach (var key in keys)
        {
            key.Dispose();
        }

        return 0;
    }

    private static void SealOrOpen(IAeadKey key, byte[] buffer, Span<AeadPacket> packets, Span<byte> nonces, bool[] opened, bool seal)
    {
        if (packets.Length == 1)
        {
            var packet = packets[0];
            if (seal)
            {
                key.Seal(nonces[..12], [], buffer.AsSpan(packet.Offset, packet.Length), buffer.AsSpan(packet.Offset, packet.Length + TagSize));
            }
            else
            {
                opened[0] = key.TryOpen(nonces[..12], [], buffer.AsSpan(packet.Offset, packet.Length + TagSize), buffer.AsSpan(packet.Offset, packet.Length));
            }
        }
        else if (seal)
        {
            ((IBatchAeadKey)key).SealBatch(buffer, packets, nonces);
        }
        else
        {
            ((IBatchAeadKey)key).TryOpenBatch(buffer, packets, nonces, opened);
        }
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted[sorted.Length / 2];
    }
}
