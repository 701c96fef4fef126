using Salvo.Tunnel.Pal;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// ChaCha20-Poly1305 from the platform's own crypto library through the tunnel's platform layer (OpenSSL's libcrypto on
/// Linux, a context kept per key and direction), where the platform has one.
/// </summary>
internal sealed class PlatformAead : IAead
{
    private PlatformAead()
    {
    }

    /// <summary>ChaCha20-Poly1305 (12-byte nonce), or null where the platform offers none (no Linux, no libcrypto.so.3).</summary>
    public static PlatformAead? ChaCha20Poly1305 { get; } = Probe();

    /// <inheritdoc />
    public int NonceSize => AeadKey.NonceSize;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) =>
        new PlatformAeadKey(TunnelPlatform.Current.CreateChaCha20Poly1305Key(key) ?? throw new PlatformNotSupportedException("The platform has no ChaCha20-Poly1305."));

    private static PlatformAead? Probe()
    {
        using var key = TunnelPlatform.Current.CreateChaCha20Poly1305Key(new byte[32]);
        return key is null ? null : new PlatformAead();
    }

    private sealed class PlatformAeadKey(AeadKey key) : IAeadKey
    {
        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext) =>
            key.Seal(nonce, associatedData, plaintext, ciphertext);

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext) =>
            key.TryOpen(nonce, associatedData, ciphertext, plaintext);

        public void Dispose() => key.Dispose();
    }
}
