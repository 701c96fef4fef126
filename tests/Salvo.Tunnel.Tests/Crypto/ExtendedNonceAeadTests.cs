using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>XChaCha20-Poly1305 from HChaCha20 and a ChaCha20-Poly1305, the native daemon's cookie cipher.</summary>
public sealed class ExtendedNonceAeadTests : AeadContractTests
{
    private protected override IAead Aead { get; } = new ExtendedNonceAead(BouncyCastleChaCha20Poly1305.Instance);

    protected override byte[] Nonce { get; } = Hex.Bytes("000000000000000000000000000000000000000000000009");

    [Fact]
    public void HChaCha20_DraftXChaChaSection221_MatchesTheSubkey()
    {
        var subkey = new byte[32];

        HChaCha20.DeriveSubkey(
            Hex.Bytes("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
            Hex.Bytes("000000090000004a0000000031415927"),
            subkey);

        Assert.Equal("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc", Hex.Of(subkey));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(64)]
    [InlineData(1_420)]
    public void Seal_RandomKeyAndNonce_MatchesLibsodium(int length)
    {
        var keyBytes = RandomNumberGenerator.GetBytes(32);
        var nonce = RandomNumberGenerator.GetBytes(24);
        var associatedData = RandomNumberGenerator.GetBytes(32);
        var plaintext = RandomNumberGenerator.GetBytes(length);
        var ours = new byte[length + 16];
        var theirs = new byte[length + 16];
        using var key = Aead.CreateKey(keyBytes);
        using var libsodium = NSecAead.XChaCha20Poly1305.CreateKey(keyBytes);

        key.Seal(nonce, associatedData, plaintext, ours);
        libsodium.Seal(nonce, associatedData, plaintext, theirs);

        Assert.Equal(Hex.Of(theirs), Hex.Of(ours));
        Assert.True(key.TryOpen(nonce, associatedData, theirs, new byte[length]));
    }

    [Fact]
    public void Managed_HoldsNoLibsodiumPrimitive()
    {
        var crypto = TunnelCrypto.Managed();

        Assert.IsNotType<NSecX25519>(crypto.KeyAgreement);
        Assert.IsType<ExtendedNonceAead>(crypto.ExtendedAead);
        Assert.IsNotType<NSecAead>(crypto.Aead);
    }
}
