using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>ChaCha20-Poly1305 against RFC 8439 section 2.8.2, and the forged-input behaviour the data path relies on.</summary>
public sealed class AeadTests
{
    [Fact]
    public void Seal_Rfc8439Section282_MatchesCiphertextAndTag()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var output = new byte[Rfc8439Vector.Plaintext.Length + 16];
        key.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, Rfc8439Vector.Plaintext, output);
        Assert.Equal(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag, Hex.Of(output));
    }

    [Fact]
    public void TryOpen_Rfc8439Section282_InPlace_RecoversPlaintext()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var buffer = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);
        Assert.True(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(Rfc8439Vector.Plaintext, buffer[..^16]);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(57)]
    [InlineData(114)]
    [InlineData(129)]
    public void TryOpen_OneFlippedBit_ReturnsFalseWithoutThrowing(int index)
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var forged = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);
        forged[index] ^= 0x01;
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, forged, new byte[forged.Length - 16]));
    }

    [Fact]
    public void TryOpen_ShorterThanTag_ReturnsFalse()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, new byte[15], []));
    }

    [Fact]
    public void TryOpen_WrongAssociatedData_ReturnsFalse()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var sealedText = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, [], sealedText, new byte[sealedText.Length - 16]));
    }

    [Fact]
    public void ExtendedNonce_RoundTripsAndRejectsForgery()
    {
        using var key = NSecAead.XChaCha20Poly1305.CreateKey(Rfc8439Vector.Key);
        var nonce = new byte[24];
        nonce[23] = 9;
        var sealedText = new byte[Rfc8439Vector.Plaintext.Length + 16];
        key.Seal(nonce, Rfc8439Vector.AssociatedData, Rfc8439Vector.Plaintext, sealedText);
        var opened = new byte[Rfc8439Vector.Plaintext.Length];
        Assert.True(key.TryOpen(nonce, Rfc8439Vector.AssociatedData, sealedText, opened));
        Assert.Equal(Rfc8439Vector.Plaintext, opened);
        nonce[0] ^= 1;
        Assert.False(key.TryOpen(nonce, Rfc8439Vector.AssociatedData, sealedText, opened));
    }
}
