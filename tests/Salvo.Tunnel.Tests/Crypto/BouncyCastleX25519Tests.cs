using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>BouncyCastle's managed X25519, the native daemon's.</summary>
public sealed class BouncyCastleX25519Tests : X25519ContractTests
{
    private protected override IKeyAgreement X25519 { get; } = new BouncyCastleX25519();

    [Fact]
    public void TryAgree_RandomKeys_MatchesLibsodium()
    {
        var libsodium = new NSecX25519();
        var ours = new byte[32];
        var theirs = new byte[32];
        var privateKey = new byte[32];
        var peerPrivate = new byte[32];
        var peerPublic = new byte[32];
        for (var i = 0; i < 50; i++)
        {
            X25519.GeneratePrivateKey(privateKey);
            X25519.GeneratePrivateKey(peerPrivate);
            libsodium.DerivePublicKey(peerPrivate, peerPublic);
            var publicKey = new byte[32];
            X25519.DerivePublicKey(peerPrivate, publicKey);
            Assert.Equal(Hex.Of(peerPublic), Hex.Of(publicKey));
            Assert.True(X25519.TryAgree(privateKey, peerPublic, ours));
            Assert.True(libsodium.TryAgree(privateKey, peerPublic, theirs));
            Assert.Equal(Hex.Of(theirs), Hex.Of(ours));
        }
    }
}
