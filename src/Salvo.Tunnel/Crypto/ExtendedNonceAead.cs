using System.Security.Cryptography;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// XChaCha20-Poly1305 built on a ChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 section 2.3): HChaCha20 of the key and
/// the nonce's first 16 bytes is the inner key; four zero bytes and the nonce's last 8 are the inner nonce. Cookie
/// replies only, so an inner key per call is fine.
/// </summary>
internal sealed class ExtendedNonceAead(IAead inner) : IAead
{
    private const int KeySize = 32;

    /// <inheritdoc />
    public int NonceSize => 24;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) => new ExtendedNonceKey(inner, key.ToArray());

    private sealed class ExtendedNonceKey(IAead inner, byte[] key) : IAeadKey
    {
        private bool _disposed;

        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
        {
            Span<byte> innerNonce = stackalloc byte[12];
            using var innerKey = CreateInnerKey(nonce, innerNonce);
            innerKey.Seal(innerNonce, associatedData, plaintext, ciphertext);
        }

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
        {
            Span<byte> innerNonce = stackalloc byte[12];
            using var innerKey = CreateInnerKey(nonce, innerNonce);
            return innerKey.TryOpen(innerNonce, associatedData, ciphertext, plaintext);
        }

        public void Dispose()
        {
            _disposed = true;
            CryptographicOperations.ZeroMemory(key);
        }

        private IAeadKey CreateInnerKey(ReadOnlySpan<byte> nonce, Span<byte> innerNonce)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (nonce.Length != 24)
            {
                throw new ArgumentException("XChaCha20-Poly1305 takes a 24-byte nonce.", nameof(nonce));
            }

            Span<byte> subkey = stackalloc byte[KeySize];
            HChaCha20.DeriveSubkey(key, nonce[..HChaCha20.NonceSize], subkey);
            innerNonce[..4].Clear();
            nonce[HChaCha20.NonceSize..].CopyTo(innerNonce[4..]);
            try
            {
                return inner.CreateKey(subkey);
            }
            finally
            {
                CryptographicOperations.ZeroMemory(subkey);
            }
        }
    }
}
