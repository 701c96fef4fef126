using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The platform's ChaCha20-Poly1305 (OpenSSL's libcrypto through EVP on Linux), the tunnel's cipher where there is one;
/// also byte for byte what libsodium makes, and the one the tunnel picks by default.
/// </summary>
public sealed class PlatformChaCha20Poly1305Tests : ChaCha20Poly1305ContractTests
{
    private protected override IAead Aead =>
        PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");

    [Fact]
    public void EveryLength_AgreesWithLibsodium()
    {
        using var platform = Aead.CreateKey(Rfc8439Vector.Key);
        using var sodium = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var random = new Random(3);
        foreach (var length in Enumerable.Range(0, 130).Concat([1_419, 1_420, 1_421, 8_000]))
        {
            var plaintext = new byte[length];
            random.NextBytes(plaintext);
            var fromPlatform = new byte[length + 16];
            var fromSodium = new byte[length + 16];

            platform.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, plaintext, fromPlatform);
            sodium.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, plaintext, fromSodium);

            Assert.Equal(fromSodium, fromPlatform);
        }
    }

    [Fact]
    public void TunnelCryptoDefault_UsesThePlatformCipher() => Assert.Same(Aead, TunnelCrypto.Default.Aead);
}
