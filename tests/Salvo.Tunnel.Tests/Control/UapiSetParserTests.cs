using Salvo.Tunnel.Control;

namespace Salvo.Tunnel.Tests.Control;

public sealed class UapiSetParserTests
{
    private static readonly string s_key = new('1', 64);
    private static readonly string s_peer = Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes);

    [Fact]
    public void TryParse_EveryKey_ReadIntoTheChange()
    {
        var errno = UapiSetParser.TryParse(
        [
            $"private_key={s_key}", "listen_port=51820", "fwmark=4660", "replace_peers=true",
            $"public_key={s_peer}", "update_only=true", $"preshared_key={s_key}", "endpoint=[fd00::1]:51821",
            "persistent_keepalive_interval=25", "allowed_ip=10.0.0.9/8", "replace_allowed_ips=true", "allowed_ip=10.1.0.0/16",
            "allowed_ip=fd00::/64", "protocol_version=1",
            $"public_key={s_peer}", "remove=true",
        ], out var change, out var error);

        Assert.Equal(0, errno);
        Assert.Null(error);
        Assert.True(change.SetsPrivateKey);
        Assert.Equal(s_key, Convert.ToHexStringLower(change.PrivateKey!.Bytes));
        Assert.Equal(51820, change.ListenPort);
        Assert.Equal(4660u, change.FwMark);
        Assert.True(change.ReplacePeers);
        Assert.Equal(2, change.Peers.Count);
        var peer = change.Peers[0];
        Assert.Equal(s_peer, Convert.ToHexStringLower(peer.PublicKey.Bytes));
        Assert.True(peer.UpdateOnly);
        Assert.False(peer.Remove);
        Assert.True(peer.SetsPresharedKey);
        Assert.Equal("[fd00::1]:51821", peer.Endpoint!.ToString());
        Assert.Equal(TimeSpan.FromSeconds(25), peer.PersistentKeepalive);
        Assert.True(peer.ReplaceAllowedIps);
        Assert.Equal(["10.1.0.0/16", "fd00::/64"], peer.AllowedIps.Select(p => p.ToString()));
        Assert.True(change.Peers[1].Remove);
    }

    [Fact]
    public void TryParse_ZeroKeys_MeanNone()
    {
        var zero = new string('0', 64);
        Assert.Equal(0, UapiSetParser.TryParse([$"private_key={zero}", $"public_key={s_peer}", $"preshared_key={zero}"], out var change, out _));
        Assert.True(change.SetsPrivateKey);
        Assert.Null(change.PrivateKey);
        Assert.True(change.Peers[0].SetsPresharedKey);
        Assert.Null(change.Peers[0].PresharedKey);
    }

    [Theory]
    [InlineData("listen_port", -71)]
    [InlineData("private_key=abc", -22)]
    [InlineData("listen_port=65536", -22)]
    [InlineData("fwmark=-1", -22)]
    [InlineData("replace_peers=false", -22)]
    [InlineData("mtu=1420", -22)]
    [InlineData("public_key=0000000000000000000000000000000000000000000000000000000000000000", -22)]
    [InlineData("PEER protocol_version=2", -22)]
    [InlineData("PEER endpoint=example.com:51820", -22)]
    [InlineData("PEER endpoint=fd00::1:51820", -22)]
    [InlineData("PEER allowed_ip=10.0.0.0/33", -22)]
    [InlineData("PEER persistent_keepalive_interval=65536", -22)]
    [InlineData("PEER remove=yes", -22)]
    [InlineData("PEER listen_port=1", -22)]
    public void TryParse_BadLine_ReturnsTheProtocolsErrno(string line, int expected)
    {
        string[] lines = line.StartsWith("PEER ", StringComparison.Ordinal) ? [$"public_key={s_peer}", line[5..]] : [line];
        Assert.Equal(expected, UapiSetParser.TryParse(lines, out _, out var error));
        Assert.False(string.IsNullOrEmpty(error));
    }
}
