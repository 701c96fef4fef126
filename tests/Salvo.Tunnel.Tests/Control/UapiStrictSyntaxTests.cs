using Salvo.Tunnel.Control;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>Values are read as wireguard-go reads them (Go's strconv.ParseUint and net/netip), not as IPAddress.Parse would.</summary>
public sealed class UapiStrictSyntaxTests
{
    private static readonly string s_peer = Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes);

    [Theory]
    [InlineData("endpoint=1.2.3:51820")] // IPAddress.Parse: 1.2.0.3
    [InlineData("endpoint=1.2.3.4.5:51820")]
    [InlineData("endpoint=010.0.0.1:51820")] // IPAddress.Parse: octal, 8.0.0.1
    [InlineData("endpoint=0x7f.0.0.1:51820")]
    [InlineData("endpoint=256.0.0.1:51820")]
    [InlineData("endpoint=[1.2.3.4]:51820")]
    [InlineData("endpoint=1.2.3.4:0")]
    [InlineData("endpoint=1.2.3.4:65536")]
    [InlineData("endpoint=1.2.3.4:+80")]
    [InlineData("endpoint=1.2.3.4")]
    [InlineData("endpoint= 1.2.3.4:51820")]
    [InlineData("endpoint=localhost:51820")]
    [InlineData("endpoint=[::1:51820")]
    [InlineData("endpoint=[fd00::00001]:51820")]
    [InlineData("endpoint=[::ffff:1.2.3]:51820")]
    [InlineData("allowed_ip=10.0.0.1")] // no prefix length: IPPrefix.Parse makes it /32
    [InlineData("allowed_ip=fd00::1")]
    [InlineData("allowed_ip=1.2.3/24")]
    [InlineData("allowed_ip=010.0.0.0/8")]
    [InlineData("allowed_ip=10.0.0.0/08")]
    [InlineData("allowed_ip=10.0.0.0/ 8")]
    [InlineData("allowed_ip= 10.0.0.0/8")]
    [InlineData("allowed_ip=10.0.0.0/33")]
    [InlineData("allowed_ip=fd00::/129")]
    [InlineData("allowed_ip=fe80::1%1/64")] // netip.ParsePrefix takes no zone
    [InlineData("allowed_ip=/8")]
    [InlineData("persistent_keepalive_interval=65536")]
    [InlineData("persistent_keepalive_interval=-1")]
    [InlineData("persistent_keepalive_interval= 25")]
    [InlineData("preshared_key=111111111111111111111111111111111111111111111111111111111111111")]
    [InlineData("preshared_key=11111111111111111111111111111111111111111111111111111111111111111")]
    [InlineData("preshared_key=111111111111111111111111111111111111111111111111111111111111111g")]
    public void TryParse_LooseOrOutOfRangePeerValue_IsInvalid(string line)
    {
        Assert.Equal(UapiErrno.Invalid, UapiSetParser.TryParse([$"public_key={s_peer}", line], out var change, out var error));
        Assert.False(string.IsNullOrEmpty(error));
        Assert.Empty(change.Peers);
    }

    [Theory]
    [InlineData("listen_port=65536")]
    [InlineData("listen_port=+1")]
    [InlineData("listen_port=")]
    [InlineData("fwmark=4294967296")]
    [InlineData("fwmark=0x10")]
    [InlineData("private_key=111111111111111111111111111111111111111111111111111111111111111")]
    public void TryParse_LooseOrOutOfRangeDeviceValue_IsInvalid(string line) =>
        Assert.Equal(UapiErrno.Invalid, UapiSetParser.TryParse([line], out _, out _));

    [Theory]
    [InlineData("endpoint=192.0.2.1:51820", "192.0.2.1:51820")]
    [InlineData("endpoint=0.0.0.0:1", "0.0.0.0:1")]
    [InlineData("endpoint=[fd00::1]:051820", "[fd00::1]:51820")] // ParseUint takes leading zeros
    [InlineData("endpoint=[::ffff:192.0.2.1]:65535", "[::ffff:192.0.2.1]:65535")]
    [InlineData("endpoint=[FD00:0:0:0:0:0:0:0001]:7", "[fd00::1]:7")]
    public void TryParse_StrictEndpoint_IsRead(string line, string expected)
    {
        Assert.Equal(UapiErrno.None, UapiSetParser.TryParse([$"public_key={s_peer}", line], out var change, out var error));
        Assert.Null(error);
        Assert.Equal(expected, change.Peers[0].Endpoint!.ToString());
    }

    [Theory]
    [InlineData("allowed_ip=10.1.2.3/8", "10.0.0.0/8")]
    [InlineData("allowed_ip=0.0.0.0/0", "0.0.0.0/0")]
    [InlineData("allowed_ip=::/0", "::/0")]
    [InlineData("allowed_ip=fd00::1/128", "fd00::1/128")]
    public void TryParse_PrefixWithLength_IsReadMasked(string line, string expected)
    {
        Assert.Equal(UapiErrno.None, UapiSetParser.TryParse([$"public_key={s_peer}", line], out var change, out _));
        Assert.Equal(expected, change.Peers[0].AllowedIps.Single().ToString());
    }

    [Fact]
    public void TryParse_LineOverTheLimit_IsRefusedUnread()
    {
        // A valid value padded with leading zeros to 4,097 bytes: the old reader parsed it (its limit was only checked
        // on a line still waiting for its newline); now any line over 256 bytes is refused as wireguard-go refuses a
        // line over its scanner's limit, with EIO.
        var line = "persistent_keepalive_interval=" + new string('0', 4097 - 32) + "25";
        Assert.Equal(4097, line.Length);
        Assert.Equal(UapiErrno.IO, UapiSetParser.TryParse([$"public_key={s_peer}", line], out var change, out var error));
        Assert.Contains("256", error, StringComparison.Ordinal);
        Assert.Empty(change.Peers);

        var longest = "persistent_keepalive_interval=" + new string('0', 256 - 32) + "25";
        Assert.Equal(UapiErrno.None, UapiSetParser.TryParse([$"public_key={s_peer}", longest], out change, out _));
        Assert.Equal(TimeSpan.FromSeconds(25), change.Peers[0].PersistentKeepalive);
    }

    [Fact]
    public void TryParse_MorePeersThanTheLimit_IsTooLarge()
    {
        var limits = UapiLimits.Default with { MaxPeersPerRequest = 2, MaxAllowedIpsPerRequest = 3 };
        var parser = new UapiSetParser(limits);
        for (var i = 1; i <= 3; i++)
        {
            parser.Add($"public_key={i:x64}");
        }

        Assert.Equal(UapiErrno.TooLarge, parser.Errno);
        Assert.Equal(UapiRefusal.RequestTooLarge, parser.Refusal);
        Assert.Empty(parser.Change.Peers);

        parser = new UapiSetParser(limits);
        parser.Add($"public_key={s_peer}");
        foreach (var prefix in new[] { "10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32", "10.0.0.4/32" })
        {
            parser.Add($"allowed_ip={prefix}");
        }

        Assert.Equal(UapiErrno.TooLarge, parser.Errno);
        Assert.Empty(parser.Change.Peers);
    }

    [Fact]
    public void TryParse_ReplaceAllowedIps_GivesBackItsCount()
    {
        var parser = new UapiSetParser(UapiLimits.Default with { MaxAllowedIpsPerRequest = 2 });
        parser.Add($"public_key={s_peer}");
        parser.Add("allowed_ip=10.0.0.1/32");
        parser.Add("allowed_ip=10.0.0.2/32");
        parser.Add("replace_allowed_ips=true");
        parser.Add("allowed_ip=10.0.0.3/32");
        Assert.Equal(UapiErrno.None, parser.Errno);
        Assert.Equal(["10.0.0.3/32"], parser.Change.Peers[0].AllowedIps.Select(p => p.ToString()));
    }

    [Fact]
    public void Add_RandomBytesAroundEveryKey_NeverThrowsAndNeverEchoesTheValue()
    {
        // A fixed seed: the same 20,000 lines every run, each a key of the protocol (or none) and random bytes.
        var random = new Random(20_261_128);
        string[] keys = ["private_key", "listen_port", "fwmark", "replace_peers", "public_key", "preshared_key", "endpoint",
            "persistent_keepalive_interval", "allowed_ip", "update_only", "remove", "protocol_version", string.Empty];
        const string Alphabet = "0123456789abcdefABCDEF:.[]/%=-+ \t\r\0xyz\u00e9\u00ff";
        var parser = new UapiSetParser(UapiLimits.Default);
        for (var i = 0; i < 20_000; i++)
        {
            var value = new string([.. Enumerable.Range(0, random.Next(0, 80)).Select(_ => Alphabet[random.Next(Alphabet.Length)])]);
            var key = keys[random.Next(keys.Length)];
            var line = random.Next(4) == 0 ? key + value : $"{key}={value}";
            if (parser.Errno != UapiErrno.None || random.Next(50) == 0)
            {
                parser = new UapiSetParser(UapiLimits.Default);
                parser.Add($"public_key={s_peer}");
            }

            parser.Add(line);
            if (parser.Error is { } error && value.Length >= 8)
            {
                Assert.DoesNotContain(value, error, StringComparison.Ordinal);
            }
        }
    }
}
