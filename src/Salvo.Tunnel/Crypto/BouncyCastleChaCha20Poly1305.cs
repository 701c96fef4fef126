using System.Security.Cryptography;
using Org.BouncyCastle.Crypto.Parameters;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// ChaCha20-Poly1305 (RFC 8439) in managed code from BouncyCastle: the native daemon's cipher where the platform has
/// none (no libcrypto.so.3), and XChaCha20-Poly1305's inner cipher there. A cipher object per call, since a key may be
/// used from several threads; the fast path is <see cref="PlatformAead"/>.
/// </summary>
internal sealed class BouncyCastleChaCha20Poly1305 : IAead
{
    private const int TagBits = 128;

    private BouncyCastleChaCha20Poly1305()
    {
    }

    /// <summary>The one instance.</summary>
    public static BouncyCastleChaCha20Poly1305 Instance { get; } = new();

    /// <inheritdoc />
    public int NonceSize => 12;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) => new Key(key.ToArray());

    private sealed class Key(byte[] key) : IAeadKey
    {
        private bool _disposed;

        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
        {
            var cipher = Create(forEncryption: true, nonce, associatedData);
            // BouncyCastle reads and writes in blocks; a copy keeps the in-place case (same memory) correct.
            var input = plaintext.ToArray();
            var written = cipher.ProcessBytes(input, ciphertext);
            cipher.DoFinal(ciphertext[written..]);
            CryptographicOperations.ZeroMemory(input);
        }

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
        {
            if (ciphertext.Length < TagBits / 8)
            {
                return false;
            }

            var cipher = Create(forEncryption: false, nonce, associatedData);
            var input = ciphertext.ToArray();
            var output = new byte[input.Length - (TagBits / 8)];
            try
            {
                var written = cipher.ProcessBytes(input, output);
                cipher.DoFinal(output.AsSpan(written));
            }
            catch (Org.BouncyCastle.Crypto.InvalidCipherTextException)
            {
                CryptographicOperations.ZeroMemory(output);
                return false;
            }

            output.CopyTo(plaintext);
            CryptographicOperations.ZeroMemory(output);
            return true;
        }

        public void Dispose()
        {
            _disposed = true;
            CryptographicOperations.ZeroMemory(key);
        }

        private Org.BouncyCastle.Crypto.Modes.ChaCha20Poly1305 Create(bool forEncryption, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            var cipher = new Org.BouncyCastle.Crypto.Modes.ChaCha20Poly1305();
            cipher.Init(forEncryption, new AeadParameters(new KeyParameter(key), TagBits, nonce.ToArray(), associatedData.ToArray()));
            return cipher;
        }
    }
}
