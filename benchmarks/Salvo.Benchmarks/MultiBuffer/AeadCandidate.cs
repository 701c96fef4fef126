using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// One ChaCha20-Poly1305 under measurement: <paramref name="Batch"/> is 1 for a cipher called one packet at a time, or
/// the packets per call for one reached through <see cref="IBatchAeadKey"/>.
/// </summary>
internal sealed record AeadCandidate(string Name, int Batch, Func<byte[], IAeadKey> CreateKey)
{
    /// <summary>
    /// Every candidate this CPU can run: OpenSSL itself (<paramref name="openSsl"/>, one packet a call), the scalar
    /// managed cipher, and the multi-buffer one in 8 lanes (AVX2) and 16 lanes (AVX-512) where the CPU has them.
    /// </summary>
    public static List<AeadCandidate> Available(IAead openSsl)
    {
        ArgumentNullException.ThrowIfNull(openSsl);
        var candidates = new List<AeadCandidate>
        {
            new("openssl single", 1, key => openSsl.CreateKey(key)),
            new("managed scalar", 1, key => ManagedChaCha20Poly1305.Instance.CreateKey(key)),
        };
        if (MultiBufferChaCha20Poly1305.EightLanes is { } eightLanes)
        {
            candidates.Add(new("managed multi-buffer x8", 8, key => eightLanes.CreateBatchKey(key)));
        }

        if (MultiBufferChaCha20Poly1305.Widest is { Lanes: 16 } sixteenLanes)
        {
            candidates.Add(new("managed multi-buffer x16", 16, key => sixteenLanes.CreateBatchKey(key)));
        }

        return candidates;
    }
}
