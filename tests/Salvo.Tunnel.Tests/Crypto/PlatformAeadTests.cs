using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The platform's ChaCha20-Poly1305 (OpenSSL through EVP on Linux) against RFC 8439 section 2.8.2, against libsodium
/// at every length a datagram can have in and out of place, and on forged input: false, never an exception.
/// </summary>
public sealed class PlatformAeadTests
{
    [PlatformAeadFact]
    public void Seal_Rfc8439Section282_MatchesCiphertextAndTag()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(Rfc8439Vector.Key);
        var output = new byte[Rfc8439Vector.Plaintext.Length + 16];

        key.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, Rfc8439Vector.Plaintext, output);

        Assert.Equal(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag, Hex.Of(output));
    }

    [PlatformAeadFact]
    public void TryOpen_Rfc8439Section282_InPlace_RecoversPlaintext()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(Rfc8439Vector.Key);
        var buffer = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);

        Assert.True(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(Rfc8439Vector.Plaintext, buffer[..^16]);
    }

    [PlatformAeadFact]
    public void EveryFlippedBitOrWrongData_IsRefusedWithoutThrowing()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(Rfc8439Vector.Key);
        for (var bit = 0; bit < Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag).Length * 8; bit++)
        {
            var forged = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);
            forged[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, forged, new byte[forged.Length - 16]), $"bit {bit} flipped was accepted");
        }

        var good = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, [], good, new byte[good.Length - 16]));
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, new byte[15], []));
        Assert.True(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, good, new byte[good.Length - 16]));
    }

    [PlatformAeadFact]
    public void EveryLength_AgreesWithLibsodium_BothWays_InPlaceAndApart()
    {
        using var platform = PlatformAead.ChaCha20Poly1305!.CreateKey(Rfc8439Vector.Key);
        using var sodium = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var random = new Random(3);
        foreach (var length in Enumerable.Range(0, 130).Concat([1_419, 1_420, 1_421, 8_000]))
        {
            var plaintext = new byte[length];
            random.NextBytes(plaintext);
            var fromPlatform = new byte[length + 16];
            var fromSodium = new byte[length + 16];
            platform.Seal(Rfc8439Vector.Nonce, [], plaintext, fromPlatform);
            sodium.Seal(Rfc8439Vector.Nonce, [], plaintext, fromSodium);
            Assert.Equal(fromSodium, fromPlatform);

            var inPlace = new byte[length + 16];
            plaintext.CopyTo(inPlace, 0);
            platform.Seal(Rfc8439Vector.Nonce, [], inPlace.AsSpan(0, length), inPlace);
            Assert.Equal(fromSodium, inPlace);
            Assert.True(platform.TryOpen(Rfc8439Vector.Nonce, [], inPlace, inPlace.AsSpan(0, length)));
            Assert.Equal(plaintext, inPlace[..length]);
        }
    }

    [PlatformAeadFact]
    public void DisposedKey_RefusesWithObjectDisposed()
    {
        var key = PlatformAead.ChaCha20Poly1305!.CreateKey(Rfc8439Vector.Key);
        key.Dispose();

        Assert.Throws<ObjectDisposedException>(() => key.Seal(Rfc8439Vector.Nonce, [], Rfc8439Vector.Plaintext, new byte[Rfc8439Vector.Plaintext.Length + 16]));
    }

    [Fact]
    public void TunnelCryptoDefault_UsesThePlatformCipherWhereThereIsOne() =>
        Assert.Same((IAead?)PlatformAead.ChaCha20Poly1305 ?? NSecAead.ChaCha20Poly1305, TunnelCrypto.Default.Aead);

    /// <summary>A fact that needs the platform's ChaCha20-Poly1305 (Linux with libcrypto.so.3); skipped with the reason otherwise.</summary>
    private sealed class PlatformAeadFactAttribute : FactAttribute
    {
        public PlatformAeadFactAttribute()
        {
            if (PlatformAead.ChaCha20Poly1305 is null)
            {
                Skip = "the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)";
            }
        }
    }
}
