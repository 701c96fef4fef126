using System.Text;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>ChaCha20-Poly1305 against RFC 8439 section 2.8.2, and the forged-input behaviour the data path relies on.</summary>
public sealed class AeadTests
{
    private const string Rfc8439Ciphertext =
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b" +
        "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc" +
        "3ff4def08e4b7a9de576d26586cec64b6116";

    private const string Rfc8439Tag = "1ae10b594f09e26a7e902ecbd0600691";

    private static readonly byte[] s_plaintext = Encoding.ASCII.GetBytes(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");

    private static readonly byte[] s_key = Enumerable.Range(0x80, 32).Select(i => (byte)i).ToArray();
    private static readonly byte[] s_nonce = Hex.Bytes("070000004041424344454647");
    private static readonly byte[] s_associatedData = Hex.Bytes("50515253c0c1c2c3c4c5c6c7");

    [Fact]
    public void Seal_Rfc8439Section282_MatchesCiphertextAndTag()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        var output = new byte[s_plaintext.Length + 16];
        key.Seal(s_nonce, s_associatedData, s_plaintext, output);
        Assert.Equal(Rfc8439Ciphertext + Rfc8439Tag, Hex.Of(output));
    }

    [Fact]
    public void TryOpen_Rfc8439Section282_InPlace_RecoversPlaintext()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        var buffer = Hex.Bytes(Rfc8439Ciphertext + Rfc8439Tag);
        Assert.True(key.TryOpen(s_nonce, s_associatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(s_plaintext, buffer[..^16]);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(57)]
    [InlineData(114)]
    [InlineData(129)]
    public void TryOpen_OneFlippedBit_ReturnsFalseWithoutThrowing(int index)
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        var forged = Hex.Bytes(Rfc8439Ciphertext + Rfc8439Tag);
        forged[index] ^= 0x01;
        Assert.False(key.TryOpen(s_nonce, s_associatedData, forged, new byte[forged.Length - 16]));
    }

    [Fact]
    public void TryOpen_ShorterThanTag_ReturnsFalse()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        Assert.False(key.TryOpen(s_nonce, s_associatedData, new byte[15], []));
    }

    [Fact]
    public void TryOpen_WrongAssociatedData_ReturnsFalse()
    {
        using var key = NSecAead.ChaCha20Poly1305.CreateKey(s_key);
        var sealedText = Hex.Bytes(Rfc8439Ciphertext + Rfc8439Tag);
        Assert.False(key.TryOpen(s_nonce, [], sealedText, new byte[sealedText.Length - 16]));
    }

    [Fact]
    public void ExtendedNonce_RoundTripsAndRejectsForgery()
    {
        using var key = NSecAead.XChaCha20Poly1305.CreateKey(s_key);
        var nonce = new byte[24];
        nonce[23] = 9;
        var sealedText = new byte[s_plaintext.Length + 16];
        key.Seal(nonce, s_associatedData, s_plaintext, sealedText);
        var opened = new byte[s_plaintext.Length];
        Assert.True(key.TryOpen(nonce, s_associatedData, sealedText, opened));
        Assert.Equal(s_plaintext, opened);
        nonce[0] ^= 1;
        Assert.False(key.TryOpen(nonce, s_associatedData, sealedText, opened));
    }
}
