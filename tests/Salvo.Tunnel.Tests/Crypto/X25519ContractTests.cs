using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>RFC 7748 vectors: section 5.2 (scalar multiplication) and section 6.1 (Diffie-Hellman), for each X25519.</summary>
public abstract class X25519ContractTests
{
    private const string AlicePrivate = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
    private const string AlicePublic = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
    private const string BobPrivate = "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb";
    private const string BobPublic = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
    private const string Shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

    private protected abstract IKeyAgreement X25519 { get; }

    [Fact]
    public void DerivePublicKey_Rfc7748Section6_MatchesBothParties()
    {
        var output = new byte[32];
        X25519.DerivePublicKey(Hex.Bytes(AlicePrivate), output);
        Assert.Equal(AlicePublic, Hex.Of(output));
        X25519.DerivePublicKey(Hex.Bytes(BobPrivate), output);
        Assert.Equal(BobPublic, Hex.Of(output));
    }

    [Fact]
    public void TryAgree_Rfc7748Section6_BothSidesGetTheSameSecret()
    {
        var alice = new byte[32];
        var bob = new byte[32];
        Assert.True(X25519.TryAgree(Hex.Bytes(AlicePrivate), Hex.Bytes(BobPublic), alice));
        Assert.True(X25519.TryAgree(Hex.Bytes(BobPrivate), Hex.Bytes(AlicePublic), bob));
        Assert.Equal(Shared, Hex.Of(alice));
        Assert.Equal(Shared, Hex.Of(bob));
    }

    [Fact]
    public void TryAgree_Rfc7748Section52Vector_MatchesUnclampedScalar()
    {
        var output = new byte[32];
        Assert.True(X25519.TryAgree(
            Hex.Bytes("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
            Hex.Bytes("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
            output));
        Assert.Equal("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552", Hex.Of(output));
    }

    [Fact]
    public void TryAgree_LowOrderPublicKey_ReturnsFalse()
    {
        // The all-zero point has order 1: every scalar maps it to zero (RFC 7748 section 6.1 says to check).
        Assert.False(X25519.TryAgree(Hex.Bytes(AlicePrivate), new byte[32], new byte[32]));
    }

    [Fact]
    public void GeneratePrivateKey_IsClampedAndRandom()
    {
        var first = new byte[32];
        var second = new byte[32];
        X25519.GeneratePrivateKey(first);
        X25519.GeneratePrivateKey(second);
        Assert.Equal(0, first[0] & 7);
        Assert.Equal(64, first[31] & 192);
        Assert.NotEqual(Hex.Of(first), Hex.Of(second));
    }
}
