using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// A ChaCha20-Poly1305 key that also seals and opens a batch of packets in one call, so a cipher can work on several
/// packets at once. Only the multi-buffer experiment has one; the tunnel's <see cref="IAeadKey"/> stays one packet a call.
/// </summary>
internal interface IBatchAeadKey : IAeadKey
{
    /// <summary>
    /// Seals a batch of packets in place, all under this key: packet i's plaintext lies in <paramref name="buffer"/> at
    /// <see cref="AeadPacket.Offset"/> for <see cref="AeadPacket.Length"/> bytes and becomes that many bytes of
    /// ciphertext plus the 16-byte tag after them; its nonce is the i-th 12-byte slice of <paramref name="nonces"/>.
    /// </summary>
    void SealBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces);

    /// <summary>
    /// Opens a batch of packets in place: packet i's ciphertext and tag lie in <paramref name="buffer"/> at
    /// <see cref="AeadPacket.Offset"/> for <see cref="AeadPacket.Length"/> + 16 bytes, and its plaintext is left at the
    /// same offset. <paramref name="opened"/>[i] says whether packet i was authentic (a refused packet's bytes are
    /// unspecified); returns how many were. Never throws for forged input.
    /// </summary>
    int TryOpenBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces, Span<bool> opened);
}
