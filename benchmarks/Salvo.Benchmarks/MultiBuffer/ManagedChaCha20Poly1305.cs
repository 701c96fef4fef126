using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// ChaCha20-Poly1305 (RFC 8439 section 2.8) in plain scalar managed code, one packet at a time: the reference the
/// multi-buffer cipher (<see cref="MultiBufferChaCha20Poly1305"/>) is measured and checked against, and its path for
/// packets that do not fill a batch. Allocates nothing per call; a key holds only its eight words, so one key may be
/// used from several threads at once.
/// </summary>
internal sealed class ManagedChaCha20Poly1305 : IAead
{
    private ManagedChaCha20Poly1305()
    {
    }

    /// <summary>The one instance.</summary>
    public static ManagedChaCha20Poly1305 Instance { get; } = new();

    /// <inheritdoc />
    public int NonceSize => 12;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) => new Key(key);

    /// <summary>Seals one packet under the key words <paramref name="key"/>.</summary>
    internal static void Seal(ReadOnlySpan<uint> key, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
    {
        CheckSizes(nonce, plaintext.Length, ciphertext.Length);
        Span<byte> block = stackalloc byte[ChaCha20.BlockSize];
        ChaCha20.Block(key, nonce, 0, block);
        var body = ciphertext[..plaintext.Length];
        ChaCha20.Xor(key, nonce, 1, plaintext, body);
        ComputeTag(block[..Poly1305.KeySize], associatedData, body, ciphertext[plaintext.Length..]);
        block.Clear();
    }

    /// <summary>Opens one packet under the key words <paramref name="key"/>; false, with the plaintext untouched, for a wrong tag.</summary>
    internal static bool TryOpen(ReadOnlySpan<uint> key, ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
    {
        if (ciphertext.Length < Poly1305.TagSize)
        {
            return false;
        }

        CheckSizes(nonce, plaintext.Length, ciphertext.Length);
        Span<byte> block = stackalloc byte[ChaCha20.BlockSize];
        ChaCha20.Block(key, nonce, 0, block);
        var body = ciphertext[..plaintext.Length];
        var authentic = TagMatches(block[..Poly1305.KeySize], associatedData, body, ciphertext[plaintext.Length..]);
        block.Clear();
        if (authentic)
        {
            ChaCha20.Xor(key, nonce, 1, body, plaintext);
        }

        return authentic;
    }

    /// <summary>Writes the tag of <paramref name="ciphertext"/> and <paramref name="associatedData"/> under the one-time key.</summary>
    internal static void ComputeTag(ReadOnlySpan<byte> polyKey, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> tag)
    {
        var poly = new Poly1305(polyKey);
        poly.UpdatePadded(associatedData);
        poly.UpdatePadded(ciphertext);
        poly.UpdateLengths(associatedData.Length, ciphertext.Length);
        poly.Finish(tag);
    }

    /// <summary>Whether <paramref name="tag"/> is the tag of the rest, compared in time independent of where they differ.</summary>
    internal static bool TagMatches(ReadOnlySpan<byte> polyKey, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, ReadOnlySpan<byte> tag)
    {
        Span<byte> expected = stackalloc byte[Poly1305.TagSize];
        ComputeTag(polyKey, associatedData, ciphertext, expected);
        return CryptographicOperations.FixedTimeEquals(expected, tag);
    }

    private static void CheckSizes(ReadOnlySpan<byte> nonce, int plaintextLength, int ciphertextLength)
    {
        if (nonce.Length != 12)
        {
            throw new ArgumentException("ChaCha20-Poly1305 takes a 12-byte nonce.", nameof(nonce));
        }

        if (ciphertextLength != plaintextLength + Poly1305.TagSize)
        {
            throw new ArgumentException("The ciphertext must be the plaintext's length plus the 16-byte tag.", nameof(ciphertextLength));
        }
    }

    private sealed class Key : IAeadKey
    {
        private readonly uint[] _key = new uint[8];
        private bool _disposed;

        public Key(ReadOnlySpan<byte> key)
        {
            if (key.Length != 32)
            {
                throw new ArgumentException("ChaCha20-Poly1305 takes a 32-byte key.", nameof(key));
            }

            ChaCha20.ReadKey(key, _key);
        }

        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            ManagedChaCha20Poly1305.Seal(_key, nonce, associatedData, plaintext, ciphertext);
        }

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return ManagedChaCha20Poly1305.TryOpen(_key, nonce, associatedData, ciphertext, plaintext);
        }

        public void Dispose()
        {
            _disposed = true;
            CryptographicOperations.ZeroMemory(System.Runtime.InteropServices.MemoryMarshal.AsBytes(_key.AsSpan()));
        }
    }
}
