namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>The contract of <see cref="AeadContractTests"/> plus RFC 8439 section 2.8.2's vector, for every ChaCha20-Poly1305 (12-byte nonce).</summary>
public abstract class ChaCha20Poly1305ContractTests : AeadContractTests
{
    [Fact]
    public void Seal_Rfc8439Section282_MatchesCiphertextAndTag()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var output = new byte[Rfc8439Vector.Plaintext.Length + 16];

        key.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, Rfc8439Vector.Plaintext, output);

        Assert.Equal(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag, Hex.Of(output));
    }

    [Fact]
    public void TryOpen_Rfc8439Section282_InPlace_RecoversThePlaintext()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var buffer = Hex.Bytes(Rfc8439Vector.Ciphertext + Rfc8439Vector.Tag);

        Assert.True(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(Rfc8439Vector.Plaintext, buffer[..^16]);
    }
}
