namespace Salvo.Tunnel.Crypto;

/// <summary>
/// An authenticated cipher with a 32-byte key, a 16-byte tag appended to the ciphertext, and a nonce of
/// <see cref="NonceSize"/> bytes. The tunnel asks for it through this seam so the data path can use whichever
/// implementation measures fastest.
/// </summary>
internal interface IAead
{
    /// <summary>Bytes of nonce the cipher takes (12 for ChaCha20-Poly1305, 24 for the extended-nonce variant).</summary>
    int NonceSize { get; }

    /// <summary>Makes a key object for repeated use; the caller disposes it, which wipes the key.</summary>
    IAeadKey CreateKey(ReadOnlySpan<byte> key);
}

/// <summary>One imported AEAD key.</summary>
internal interface IAeadKey : IDisposable
{
    /// <summary>
    /// Encrypts <paramref name="plaintext"/> into <paramref name="ciphertext"/>, which is 16 bytes longer (the tag).
    /// The two may be the same memory (in place), but must not overlap otherwise.
    /// </summary>
    void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext);

    /// <summary>
    /// Decrypts and authenticates; returns false, with <paramref name="plaintext"/> unspecified, when the tag does
    /// not match. Never throws for forged input. <paramref name="plaintext"/> is 16 bytes shorter than
    /// <paramref name="ciphertext"/> and may start at the same address.
    /// </summary>
    bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext);

    /// <summary>
    /// Seals a batch of packets in place, all under this key: packet i's plaintext lies in <paramref name="buffer"/> at
    /// <see cref="AeadPacket.Offset"/> for <see cref="AeadPacket.Length"/> bytes and becomes that many bytes of
    /// ciphertext plus the 16-byte tag after them; its nonce is the i-th slice of <paramref name="nonces"/> (one nonce
    /// after another). This default seals one packet after another; a cipher that works on several packets at once
    /// overrides it.
    /// </summary>
    void SealBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces)
    {
        var nonceSize = nonces.Length / Math.Max(packets.Length, 1);
        for (var i = 0; i < packets.Length; i++)
        {
            var packet = packets[i];
            Seal(
                nonces.Slice(i * nonceSize, nonceSize),
                buffer.Slice(packet.AssociatedDataOffset, packet.AssociatedDataLength),
                buffer.Slice(packet.Offset, packet.Length),
                buffer.Slice(packet.Offset, packet.Length + AeadPacket.TagSize));
        }
    }

    /// <summary>
    /// Opens a batch of packets in place: packet i's ciphertext and tag lie in <paramref name="buffer"/> at
    /// <see cref="AeadPacket.Offset"/> for <see cref="AeadPacket.Length"/> + 16 bytes, and its plaintext is left at the
    /// same offset. <paramref name="opened"/>[i] says whether packet i was authentic (a refused packet's bytes are
    /// unspecified); returns how many were. Never throws for forged input. This default opens one packet after another.
    /// </summary>
    int TryOpenBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces, Span<bool> opened)
    {
        var nonceSize = nonces.Length / Math.Max(packets.Length, 1);
        var count = 0;
        for (var i = 0; i < packets.Length; i++)
        {
            var packet = packets[i];
            opened[i] = TryOpen(
                nonces.Slice(i * nonceSize, nonceSize),
                buffer.Slice(packet.AssociatedDataOffset, packet.AssociatedDataLength),
                buffer.Slice(packet.Offset, packet.Length + AeadPacket.TagSize),
                buffer.Slice(packet.Offset, packet.Length));
            count += opened[i] ? 1 : 0;
        }

        return count;
    }
}
