using NSec.Cryptography;

namespace Salvo.Tunnel.Crypto;

/// <summary>An <see cref="IAead"/> backed by libsodium through NSec.</summary>
internal sealed class NSecAead : IAead
{
    private readonly AeadAlgorithm _algorithm;

    private NSecAead(AeadAlgorithm algorithm) => _algorithm = algorithm;

    /// <summary>ChaCha20-Poly1305 as RFC 8439 defines it (12-byte nonce).</summary>
    public static NSecAead ChaCha20Poly1305 { get; } = new(AeadAlgorithm.ChaCha20Poly1305);

    /// <summary>XChaCha20-Poly1305 (24-byte nonce).</summary>
    public static NSecAead XChaCha20Poly1305 { get; } = new(AeadAlgorithm.XChaCha20Poly1305);

    /// <inheritdoc />
    public int NonceSize => _algorithm.NonceSize;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) =>
        new NSecAeadKey(_algorithm, Key.Import(_algorithm, key, KeyBlobFormat.RawSymmetricKey));

    private sealed class NSecAeadKey(AeadAlgorithm algorithm, Key key) : IAeadKey
    {
        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext) =>
            algorithm.Encrypt(key, nonce, associatedData, plaintext, ciphertext);

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext) =>
            ciphertext.Length >= algorithm.TagSize && algorithm.Decrypt(key, nonce, associatedData, ciphertext, plaintext);

        public void Dispose() => key.Dispose();
    }
}
