using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Tests.Configuration;

/// <summary>
/// The three places where the file parser used to take what wg(8) refuses: an empty AllowedIPs item, an address in
/// inet_aton's forms or with a zone, and FwMark's "0X". Each now reads as wg reads it.
/// </summary>
public sealed class WgStrictnessTests
{
    private static readonly string s_private = WireGuardKey.GeneratePrivateKey().ToString();
    private static readonly string s_peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey().ToString();

    private static TunnelConfiguration Peer(string line) =>
        WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n\n[Peer]\nPublicKey = {s_peer}\n{line}\n");

    [Theory]
    [InlineData("198.19.0.2/32,,198.19.0.3/32", 2)]
    [InlineData("198.19.0.2/32,", 2)]
    [InlineData(", 198.19.0.2/32", 1)]
    public void AllowedIps_EmptyItem_IsRefusedAsWgRefusesIt(string value, int item)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => Peer($"AllowedIPs = {value}"));
        Assert.Equal(6, error.Line);
        Assert.Contains($"AllowedIPs: item {item} is empty", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AllowedIps_EmptyValue_IsAnEmptyList() =>
        Assert.Empty(Assert.Single(Peer("AllowedIPs =").Peers).AllowedIps);

    [Fact]
    public void Address_EmptyItem_IsSkippedAsWgQuickSplitsIt()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nAddress = 198.19.0.1/24,, fd00::1/64,\n");
        Assert.Equal(["198.19.0.1/24", "fd00::1/64"], config.Addresses.Select(a => a.ToString()));
    }

    [Theory]
    [InlineData("AllowedIPs = 10.1/32")]
    [InlineData("AllowedIPs = 167772161/32")]
    [InlineData("AllowedIPs = 0x0a.0.0.1/32")]
    [InlineData("AllowedIPs = 010.0.0.1/32")]
    [InlineData("AllowedIPs = 198.19.0.2/+32")]
    [InlineData("AllowedIPs = fe80::1%eth0/128")]
    [InlineData("Endpoint = 10.1:51820")]
    [InlineData("Endpoint = 198.18.0.2:+51820")]
    public void Address_InFormsInetPtonRefuses_IsRefused(string line)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => Peer(line));
        Assert.Equal(6, error.Line);
    }

    [Theory]
    [InlineData("AllowedIPs = 198.19.0.2/32, fd00::/64, 0.0.0.0/0")]
    [InlineData("Endpoint = 198.18.0.2:51820")]
    [InlineData("Endpoint = [fd00::2]:51820")]
    public void Address_InetPtonForms_AreTaken(string line) =>
        Assert.Single(Peer(line).Peers);

    [Fact]
    public void FwMark_UppercaseHexPrefix_IsRefusedAsWgRefusesIt()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() =>
            WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nFwMark = 0X10\n"));
        Assert.Contains("FwMark", error.Message, StringComparison.Ordinal);
        Assert.Equal(16u, WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nFwMark = 0x10\n").FwMark);
    }
}
