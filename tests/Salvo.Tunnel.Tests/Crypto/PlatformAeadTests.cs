using System.Text;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The platform's ChaCha20-Poly1305 (OpenSSL through EVP on Linux) against RFC 8439 section 2.8.2, against libsodium
/// at every length a datagram can have in and out of place, and on forged input: false, never an exception.
/// </summary>
public sealed class PlatformAeadTests
{
    private const string Rfc8439Sealed =
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b" +
        "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc" +
        "3ff4def08e4b7a9de576d26586cec64b6116" + "1ae10b594f09e26a7e902ecbd0600691";

    private static readonly byte[] s_plaintext = Encoding.ASCII.GetBytes(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");

    private static readonly byte[] s_key = Enumerable.Range(0x80, 32).Select(i => (byte)i).ToArray();
    private static readonly byte[] s_nonce = Hex.Bytes("070000004041424344454647");
    private static readonly byte[] s_associatedData = Hex.Bytes("50515253c0c1c2c3c4c5c6c7");

    [PlatformAeadFact]
    public void Seal_Rfc8439Section282_MatchesCiphertextAndTag()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(s_key);
        var output = new byte[s_plaintext.Length + 16];

        key.Seal(s_nonce, s_associatedData, s_plaintext, output);

        Assert.Equal(Rfc8439Sealed, Hex.Of(output));
    }

    [PlatformAeadFact]
    public void TryOpen_Rfc8439Section282_InPlace_RecoversPlaintext()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(s_key);
        var buffer = Hex.Bytes(Rfc8439Sealed);

        Assert.True(key.TryOpen(s_nonce, s_associatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(s_plaintext, buffer[..^16]);
    }

    [PlatformAeadFact]
    public void EveryFlippedBitOrWrongData_IsRefusedWithoutThrowing()
    {
        using var key = PlatformAead.ChaCha20Poly1305!.CreateKey(s_key);
        for (var bit = 0; bit < Hex.Bytes(Rfc8439Sealed).Length * 8; bit++)
        {
            var forged = Hex.Bytes(Rfc8439Sealed);
            forged[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(key.TryOpen(s_nonce, s_associatedData, forged, new byte[forged.Length - 16]), $"bit {bit} flipped was accepted");
        }

        var good = Hex.Bytes(Rfc8439Sealed);
        Assert.False(key.TryOpen(s_nonce, [], good, new byte[good.Length - 16]));
        Assert.False(key.TryOpen(s_nonce, s_associatedData, new byte[15], []));
        Assert.True(key.TryOpen(s_nonce, s_associatedData, good, new byte[good.Length - 16]));
    }

    [PlatformAeadFact]
    public void EveryLength_AgreesWithLibsodium_BothWays_InPlaceAndApart()
    {
        using var platform = PlatformAead.ChaCha20Poly1305!.CreateKey(s_key);
        using var sodium = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        var random = new Random(3);
        foreach (var length in Enumerable.Range(0, 130).Concat([1_419, 1_420, 1_421, 8_000]))
        {
            var plaintext = new byte[length];
            random.NextBytes(plaintext);
            var fromPlatform = new byte[length + 16];
            var fromSodium = new byte[length + 16];
            platform.Seal(s_nonce, [], plaintext, fromPlatform);
            sodium.Seal(s_nonce, [], plaintext, fromSodium);
            Assert.Equal(fromSodium, fromPlatform);

            var inPlace = new byte[length + 16];
            plaintext.CopyTo(inPlace, 0);
            platform.Seal(s_nonce, [], inPlace.AsSpan(0, length), inPlace);
            Assert.Equal(fromSodium, inPlace);
            Assert.True(platform.TryOpen(s_nonce, [], inPlace, inPlace.AsSpan(0, length)));
            Assert.Equal(plaintext, inPlace[..length]);
        }
    }

    [PlatformAeadFact]
    public void DisposedKey_RefusesWithObjectDisposed()
    {
        var key = PlatformAead.ChaCha20Poly1305!.CreateKey(s_key);
        key.Dispose();

        Assert.Throws<ObjectDisposedException>(() => key.Seal(s_nonce, [], s_plaintext, new byte[s_plaintext.Length + 16]));
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
