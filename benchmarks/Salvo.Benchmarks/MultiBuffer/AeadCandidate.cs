using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// One ChaCha20-Poly1305 under measurement: <paramref name="Batch"/> is 1 for a cipher called one packet at a time, or
/// the packets per call for one reached through <see cref="IBatchAeadKey"/>.
/// </summary>
internal sealed record AeadCandidate(string Name, int Batch, Func<byte[], IAeadKey> CreateKey);
