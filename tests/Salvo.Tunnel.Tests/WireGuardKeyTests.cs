using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests;

public sealed class WireGuardKeyTests
{
    [RequiresFact(Tools = ["wg"])]
    public void DerivePublicKey_KeyFromWgGenkey_MatchesWgPubkey()
    {
        var wg = ExternalTool.Find("wg")!;
        var privateText = ExternalTool.Run(wg, ["genkey"]).Trim();
        var expectedPublic = ExternalTool.Run(wg, ["pubkey"], privateText + "\n").Trim();

        var ours = WireGuardKey.Parse(privateText).DerivePublicKey().ToString();

        Assert.Equal(expectedPublic, ours);
    }

    [RequiresFact(Tools = ["wg"])]
    public void GeneratePrivateKey_AcceptedByWgPubkey_SamePublicKey()
    {
        var wg = ExternalTool.Find("wg")!;
        var key = WireGuardKey.GeneratePrivateKey();
        var expectedPublic = ExternalTool.Run(wg, ["pubkey"], key + "\n").Trim();
        Assert.Equal(expectedPublic, key.DerivePublicKey().ToString());
    }

    [Fact]
    public void Parse_Rfc7748AliceKey_GivesHerPublicKey()
    {
        var alice = WireGuardKey.FromBytes(Convert.FromHexString("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
        var text = alice.ToString();
        Assert.Equal(WireGuardKey.Base64Length, text.Length);
        Assert.Equal(
            "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
            Convert.ToHexStringLower(WireGuardKey.Parse(text).DerivePublicKey().Bytes));
    }

    [Theory]
    [InlineData("")]
    [InlineData("not base64 at all, but forty-four characters")]
    [InlineData("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")]
    [InlineData("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")]
    public void TryParse_NotAKey_ReturnsFalse(string text) => Assert.False(WireGuardKey.TryParse(text, out _));

    [Fact]
    public void Equals_SameBytes_True_OtherBytes_False()
    {
        var key = WireGuardKey.GeneratePrivateKey();
        Assert.Equal(key, WireGuardKey.Parse(key.ToString()));
        Assert.NotEqual(key, WireGuardKey.GeneratePrivateKey());
    }
}
