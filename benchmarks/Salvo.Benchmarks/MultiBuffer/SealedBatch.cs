using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// One random batch sealed twice, by OpenSSL one packet at a time and by a candidate in its own batches: random bytes,
/// key and nonces, and associated data of 0 bytes for a third of the packets and 1 to 32 for the rest (the tunnel
/// seals with none; the check wants both). Holds the candidate's key for the opens that follow.
/// </summary>
internal sealed class SealedBatch : IDisposable
{
    private SealedBatch(byte[] buffer, byte[] expected, byte[] plain, AeadPacket[] packets, byte[] nonces, IAeadKey key)
    {
        Buffer = buffer;
        Expected = expected;
        Plain = plain;
        Packets = packets;
        Nonces = nonces;
        Key = key;
    }

    /// <summary>The batch as the candidate sealed it.</summary>
    public byte[] Buffer { get; }

    /// <summary>The batch as OpenSSL sealed it.</summary>
    public byte[] Expected { get; }

    /// <summary>The batch before sealing.</summary>
    public byte[] Plain { get; }

    public AeadPacket[] Packets { get; }

    public byte[] Nonces { get; }

    /// <summary>The candidate's key.</summary>
    public IAeadKey Key { get; }

    public static SealedBatch Create(AeadCandidate candidate, IAead openSsl, int[] lengths, Random random)
    {
        var adLengths = new int[lengths.Length];
        for (var i = 0; i < adLengths.Length; i++)
        {
            adLengths[i] = random.Next(3) == 0 ? 0 : random.Next(1, 33);
        }

        var (buffer, packets) = CandidateCheck.Layout(lengths, adLengths);
        random.NextBytes(buffer);
        var nonces = new byte[lengths.Length * CandidateCheck.NonceSize];
        random.NextBytes(nonces);
        var keyBytes = new byte[32];
        random.NextBytes(keyBytes);
        var plain = (byte[])buffer.Clone();

        using var reference = openSsl.CreateKey(keyBytes);
        var key = candidate.CreateKey(keyBytes);
        var expected = (byte[])buffer.Clone();
        CandidateCheck.Seal(reference, 1, expected, packets, nonces);
        CandidateCheck.Seal(key, candidate.Batch, buffer, packets, nonces);
        return new SealedBatch(buffer, expected, plain, packets, nonces, key);
    }

    public void Dispose() => Key.Dispose();
}
