namespace Salvo.Tunnel.Pal;

/// <summary>
/// One ChaCha20-Poly1305 key (RFC 8439) held by the platform's own crypto library: seal and open with a 12-byte nonce,
/// the 16-byte tag after the ciphertext. Opened by <see cref="TunnelPlatform.CreateChaCha20Poly1305Key"/>. Safe to call
/// from several threads (each operation holds the key's context alone); disposing it wipes the key once no call uses it.
/// </summary>
internal abstract class AeadKey : IDisposable
{
    /// <summary>Bytes of tag after the ciphertext.</summary>
    public const int TagSize = 16;

    /// <summary>Bytes of nonce.</summary>
    public const int NonceSize = 12;

    /// <summary>Encrypts <paramref name="plaintext"/> into <paramref name="ciphertext"/> (16 bytes longer; the same memory or apart).</summary>
    /// <exception cref="ArgumentException">A length is wrong.</exception>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public abstract void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext);

    /// <summary>Decrypts and authenticates; false, with <paramref name="plaintext"/> unspecified, when the tag does not match or a length is wrong.</summary>
    /// <exception cref="ObjectDisposedException">The key was disposed.</exception>
    public abstract bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext);

    /// <summary>Wipes the key once no call is using it.</summary>
    public abstract void Dispose();
}
