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
}
