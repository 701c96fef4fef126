using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The scalar managed ChaCha20-Poly1305, the multi-buffer cipher's reference: the contract and RFC 8439's vectors, and
/// byte for byte what OpenSSL makes on random keys, nonces and associated data at every length.
/// </summary>
public sealed class ManagedChaCha20Poly1305Tests : ChaCha20Poly1305ContractTests
{
    private protected override IAead Aead => ManagedChaCha20Poly1305.Instance;

    [Fact]
    public void TryOpen_Rfc8439AppendixA5_RecoversThePlaintext()
    {
        using var key = Aead.CreateKey(Hex.Bytes(Rfc8439AppendixA5.Key));
        var ciphertext = Hex.Bytes(Rfc8439AppendixA5.Ciphertext + Rfc8439AppendixA5.Tag);
        var plaintext = new byte[ciphertext.Length - 16];

        Assert.True(key.TryOpen(Hex.Bytes(Rfc8439AppendixA5.Nonce), Hex.Bytes(Rfc8439AppendixA5.AssociatedData), ciphertext, plaintext));
        Assert.Equal(Rfc8439AppendixA5.Plaintext, Hex.Of(plaintext));
    }

    [Fact]
    public void Seal_Rfc8439AppendixA5_MatchesCiphertextAndTag()
    {
        using var key = Aead.CreateKey(Hex.Bytes(Rfc8439AppendixA5.Key));
        var plaintext = Hex.Bytes(Rfc8439AppendixA5.Plaintext);
        var output = new byte[plaintext.Length + 16];

        key.Seal(Hex.Bytes(Rfc8439AppendixA5.Nonce), Hex.Bytes(Rfc8439AppendixA5.AssociatedData), plaintext, output);

        Assert.Equal(Rfc8439AppendixA5.Ciphertext + Rfc8439AppendixA5.Tag, Hex.Of(output));
    }

    [Fact]
    public void EveryLengthTo2048_AndASampleAbove_AgreesWithOpenSsl()
    {
        var random = new Random(8439);
        var lengths = Enumerable.Range(0, 2_049).Concat(Enumerable.Range(0, 200).Select(_ => random.Next(2_049, 65_536))).Append(65_535);
        OpenSslDifferential.Check(Aead, lengths, random);
    }

    /// <summary>Seals only: opening is the same keystream and tag code, checked on every length of the test above.</summary>
    [Fact]
    public void EveryLengthTo65535_SealsAsOpenSslDoes() => OpenSslDifferential.Check(Aead, Enumerable.Range(0, 65_536), new Random(65_535), open: false);
}

/// <summary>Seals and opens under one implementation and OpenSSL (<see cref="PlatformAead"/>) and asserts the same bytes.</summary>
internal static class OpenSslDifferential
{
    /// <summary>
    /// Seals each length under both and compares; opens OpenSSL's seal under the implementation too where
    /// <paramref name="open"/>. A fresh key every 64 lengths, a fresh nonce and associated data every time, and the
    /// plaintext a slice of 64 KiB of random bytes at a random offset.
    /// </summary>
    public static void Check(IAead aead, IEnumerable<int> lengths, Random random, bool open = true)
    {
        var openSsl = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");
        var keyBytes = new byte[32];
        var nonce = new byte[12];
        var associatedData = new byte[40];
        var random64K = new byte[2 * 65_536];
        random.NextBytes(random64K);
        var ours = new byte[65_535 + 16];
        var theirs = new byte[65_535 + 16];
        var opened = new byte[65_535];
        var count = 0;
        IAeadKey? key = null;
        IAeadKey? reference = null;
        try
        {
            foreach (var length in lengths)
            {
                if (count++ % 64 == 0)
                {
                    key?.Dispose();
                    reference?.Dispose();
                    random.NextBytes(keyBytes);
                    key = aead.CreateKey(keyBytes);
                    reference = openSsl.CreateKey(keyBytes);
                }

                random.NextBytes(nonce);
                random.NextBytes(associatedData);
                var ad = associatedData.AsSpan(0, random.Next(0, associatedData.Length + 1));
                var plaintext = random64K.AsSpan(random.Next(0, 65_536), length);

                key!.Seal(nonce, ad, plaintext, ours.AsSpan(0, length + 16));
                reference!.Seal(nonce, ad, plaintext, theirs.AsSpan(0, length + 16));
                Assert.True(ours.AsSpan(0, length + 16).SequenceEqual(theirs.AsSpan(0, length + 16)), $"length {length} sealed differently from OpenSSL");
                if (open)
                {
                    Assert.True(key.TryOpen(nonce, ad, theirs.AsSpan(0, length + 16), opened.AsSpan(0, length)), $"length {length}: OpenSSL's seal did not open");
                    Assert.True(opened.AsSpan(0, length).SequenceEqual(plaintext), $"length {length} opened to other bytes");
                }
            }
        }
        finally
        {
            key?.Dispose();
            reference?.Dispose();
            CryptographicOperations.ZeroMemory(keyBytes);
        }
    }
}
