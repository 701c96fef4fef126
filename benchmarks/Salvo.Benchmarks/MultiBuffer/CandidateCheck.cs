using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// Whether a candidate computes ChaCha20-Poly1305 at all, checked before any timing so that no figure is of a wrong
/// answer (the AVX-512 lanes, for one, run only where the CPU has AVX-512, which the build machine may not): RFC 8439's
/// known answers (section 2.8.2 and appendix A.5), sealed and opened, then random batches compared byte for byte with
/// OpenSSL (<see cref="PlatformAead"/>): random keys, nonces and associated data, mixed lengths from 0 to 65,535
/// bytes, batch sizes that fill whole vector groups, leave a partial group, or fall below a group's minimum, and one
/// forged packet per batch that must be refused alone.
/// </summary>
internal static class CandidateCheck
{
    private const int TagSize = AeadPacket.TagSize;
    public const int NonceSize = 12;

    /// <summary>Random batches per candidate: about 1,000 packets in all, under a second even for the scalar code.</summary>
    private const int Trials = 48;

    /// <summary>Largest random batch: two groups of 16 lanes and a remainder, so every group shape comes up.</summary>
    private const int MaxPackets = 40;

    /// <summary>Null where the candidate agrees everywhere; otherwise what differed first, with the seed to repeat it.</summary>
    public static string? FirstDifference(AeadCandidate candidate, IAead openSsl, int seed)
    {
        foreach (var vector in Rfc8439Vectors.All)
        {
            if (KnownAnswer(candidate, vector) is { } difference)
            {
                return $"{vector.Name}: {difference}";
            }
        }

        var random = new Random(seed);
        for (var trial = 0; trial < Trials; trial++)
        {
            if (AgainstOpenSsl(candidate, openSsl, random) is { } difference)
            {
                return $"random batch {trial} of seed {seed}: {difference}";
            }
        }

        return null;
    }

    private static string? KnownAnswer(AeadCandidate candidate, Rfc8439Vector vector)
    {
        var associatedData = Convert.FromHexString(vector.AssociatedData);
        var plaintext = Convert.FromHexString(vector.Plaintext);
        var sealedBytes = Convert.FromHexString(vector.Ciphertext + vector.Tag);
        var nonce = Convert.FromHexString(vector.Nonce);

        // A batch of copies: one vector group and a partial one for a multi-buffer cipher, so both paths meet the vector.
        var count = candidate.Batch == 1 ? 1 : (2 * candidate.Batch) - 1;
        var lengths = Enumerable.Repeat(plaintext.Length, count).ToArray();
        var adLengths = Enumerable.Repeat(associatedData.Length, count).ToArray();
        var (buffer, packets) = Layout(lengths, adLengths);
        var nonces = new byte[count * NonceSize];
        foreach (var packet in packets)
        {
            associatedData.CopyTo(buffer, packet.AssociatedDataOffset);
            plaintext.CopyTo(buffer, packet.Offset);
        }

        for (var i = 0; i < count; i++)
        {
            nonce.CopyTo(nonces, i * NonceSize);
        }

        using var key = candidate.CreateKey(Convert.FromHexString(vector.Key));
        Seal(key, candidate.Batch, buffer, packets, nonces);
        foreach (var packet in packets)
        {
            if (!buffer.AsSpan(packet.Offset, packet.Length + TagSize).SequenceEqual(sealedBytes))
            {
                return "the sealed bytes are not the RFC's ciphertext and tag";
            }
        }

        var opened = new bool[count];
        if (Open(key, candidate.Batch, buffer, packets, nonces, opened) != count)
        {
            return "the RFC's ciphertext and tag are refused";
        }

        foreach (var packet in packets)
        {
            if (!buffer.AsSpan(packet.Offset, packet.Length).SequenceEqual(plaintext))
            {
                return "opening does not give the RFC's plaintext";
            }
        }

        return null;
    }

    private static string? AgainstOpenSsl(AeadCandidate candidate, IAead openSsl, Random random)
    {
        var count = random.Next(1, MaxPackets + 1);
        var lengths = new int[count];
        for (var i = 0; i < count; i++)
        {
            // Mostly the tunnel's sizes (full 1,420-byte packets, small ones, anything to 2 KiB), a few up to 64 KiB,
            // and the edges: empty, and one short of or one past a 64-byte block.
            lengths[i] = random.Next(10) switch
            {
                < 3 => 1_420,
                < 5 => random.Next(0, 129),
                < 8 => random.Next(0, 2_049),
                8 => random.Next(2_049, 65_536),
                _ => random.Next(4) switch { 0 => 0, 1 => 63, 2 => 65, _ => 65_535 },
            };
        }

        using var batch = SealedBatch.Create(candidate, openSsl, lengths, random);
        var (buffer, expected, plain, packets, nonces, key) = (batch.Buffer, batch.Expected, batch.Plain, batch.Packets, batch.Nonces, batch.Key);
        if (FirstDifferingPacket(buffer, expected, packets, TagSize) is { } sealIndex)
        {
            return $"packet {sealIndex} of {count} ({packets[sealIndex].Length} bytes) seals differently from OpenSSL";
        }

        var opened = new bool[count];
        var work = (byte[])expected.Clone();
        if (Open(key, candidate.Batch, work, packets, nonces, opened) != count)
        {
            return $"packet {Array.IndexOf(opened, false)} of {count} sealed by OpenSSL is refused";
        }

        if (FirstDifferingPacket(work, plain, packets, 0) is { } openIndex)
        {
            return $"packet {openIndex} of {count} ({packets[openIndex].Length} bytes) opens to other bytes than OpenSSL sealed";
        }

        // One forged packet (a flipped bit in its associated data, body or tag) must be refused and the others still open.
        var forged = random.Next(count);
        var packetToForge = packets[forged];
        var place = random.Next(packetToForge.AssociatedDataLength + packetToForge.Length + TagSize);
        var at = place < packetToForge.AssociatedDataLength
            ? packetToForge.AssociatedDataOffset + place
            : packetToForge.Offset + place - packetToForge.AssociatedDataLength;
        work = (byte[])expected.Clone();
        work[at] ^= (byte)(1 << random.Next(8));
        var authentic = Open(key, candidate.Batch, work, packets, nonces, opened);
        if (opened[forged] || authentic != count - 1)
        {
            return $"with packet {forged} of {count} forged, {authentic} open (packet {forged} {(opened[forged] ? "among them" : "not")})";
        }

        return null;
    }

    /// <summary>Each packet's associated data, then its body and room for the tag, one after another.</summary>
    public static (byte[] Buffer, AeadPacket[] Packets) Layout(int[] lengths, int[] adLengths)
    {
        var packets = new AeadPacket[lengths.Length];
        var offset = 0;
        for (var i = 0; i < lengths.Length; i++)
        {
            packets[i] = new AeadPacket(offset + adLengths[i], lengths[i], offset, adLengths[i]);
            offset += adLengths[i] + lengths[i] + TagSize;
        }

        return (new byte[offset], packets);
    }

    public static int? FirstDifferingPacket(byte[] actual, byte[] expected, AeadPacket[] packets, int tail)
    {
        for (var i = 0; i < packets.Length; i++)
        {
            var packet = packets[i];
            if (!actual.AsSpan(packet.AssociatedDataOffset, packet.AssociatedDataLength).SequenceEqual(expected.AsSpan(packet.AssociatedDataOffset, packet.AssociatedDataLength)) ||
                !actual.AsSpan(packet.Offset, packet.Length + tail).SequenceEqual(expected.AsSpan(packet.Offset, packet.Length + tail)))
            {
                return i;
            }
        }

        return null;
    }

    public static void Seal(IAeadKey key, int batch, Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces)
    {
        if (batch > 1)
        {
            ((IBatchAeadKey)key).SealBatch(buffer, packets, nonces);
            return;
        }

        for (var i = 0; i < packets.Length; i++)
        {
            var packet = packets[i];
            key.Seal(
                nonces.Slice(i * NonceSize, NonceSize),
                buffer.Slice(packet.AssociatedDataOffset, packet.AssociatedDataLength),
                buffer.Slice(packet.Offset, packet.Length),
                buffer.Slice(packet.Offset, packet.Length + TagSize));
        }
    }

    public static int Open(IAeadKey key, int batch, Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces, Span<bool> opened)
    {
        if (batch > 1)
        {
            return ((IBatchAeadKey)key).TryOpenBatch(buffer, packets, nonces, opened);
        }

        var count = 0;
        for (var i = 0; i < packets.Length; i++)
        {
            var packet = packets[i];
            opened[i] = key.TryOpen(
                nonces.Slice(i * NonceSize, NonceSize),
                buffer.Slice(packet.AssociatedDataOffset, packet.AssociatedDataLength),
                buffer.Slice(packet.Offset, packet.Length + TagSize),
                buffer.Slice(packet.Offset, packet.Length));
            count += opened[i] ? 1 : 0;
        }

        return count;
    }
}
