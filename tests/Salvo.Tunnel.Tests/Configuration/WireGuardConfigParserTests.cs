using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Tests.Configuration;

public sealed class WireGuardConfigParserTests
{
    private static readonly string s_private = WireGuardKey.GeneratePrivateKey().ToString();
    private static readonly string s_peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey().ToString();
    private static readonly string s_peer2 = WireGuardKey.GeneratePrivateKey().DerivePublicKey().ToString();

    [Fact]
    public void Parse_WgQuickFile_ReadsEverySupportedKey()
    {
        var config = WireGuardConfigParser.Parse($"""
            # a comment
            [Interface]
            PrivateKey = {s_private}
            ListenPort = 51820
            Address = 198.19.0.1/24, fd00::1/64
            MTU = 1380

            [Peer]
            PublicKey = {s_peer}   # trailing comment
            PresharedKey = {s_peer2}
            AllowedIPs = 198.19.0.2/32
            allowedips = fd00::2/128
            Endpoint = 198.18.0.2:51820
            PersistentKeepalive = 25

            [Peer]
            PublicKey = {s_peer2}
            Endpoint = [fd00::9]:1234
            PersistentKeepalive = off
            """);

        Assert.Equal(s_private, config.PrivateKey!.ToString());
        Assert.Equal(51820, config.ListenPort);
        // An interface address keeps its host bits: 198.19.0.1/24 is that address on a /24, not the network 198.19.0.0/24.
        Assert.Equal(["198.19.0.1/24", "fd00::1/64"], config.Addresses.Select(a => a.ToString()));
        Assert.Equal(1380, config.Mtu);
        Assert.Equal(2, config.Peers.Count);
        var peer = config.Peers[0];
        Assert.Equal(s_peer, peer.PublicKey.ToString());
        Assert.Equal(s_peer2, peer.PresharedKey!.ToString());
        Assert.Equal(["198.19.0.2/32", "fd00::2/128"], peer.AllowedIps.Select(a => a.ToString()));
        Assert.Equal("198.18.0.2:51820", peer.Endpoint!.ToString());
        Assert.Equal(TimeSpan.FromSeconds(25), peer.PersistentKeepalive);
        Assert.Equal("[fd00::9]:1234", config.Peers[1].Endpoint!.ToString());
        Assert.Null(config.Peers[1].PersistentKeepalive);
    }

    [Theory]
    [InlineData("auto", TcpFallbackMode.Auto)]
    [InlineData("off", TcpFallbackMode.Off)]
    [InlineData("Only", TcpFallbackMode.Only)]
    public void Parse_TcpFallback_ReadsTheMode(string value, TcpFallbackMode expected)
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n[Peer]\nPublicKey = {s_peer}\nTcpFallback = {value}\n");
        Assert.Equal(expected, config.Peers[0].TcpFallback);
    }

    [Fact]
    public void Parse_TcpFallbackTimers_SetTheDetectionTimes()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nTcpFallbackProbeAfterMs = 500\nTcpFallbackProbeTimeoutMs = 1500\n");
        Assert.Equal(TimeSpan.FromMilliseconds(500), config.TcpFallback.ProbeAfter);
        Assert.Equal(TimeSpan.FromMilliseconds(1500), config.TcpFallback.ProbeTimeout);
        Assert.Equal(new TcpFallbackOptions().UdpReprobeBackoff, config.TcpFallback.UdpReprobeBackoff);
    }

    [Fact]
    public void Parse_NoTcpFallbackTimers_KeepsTheDefaults()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n");
        Assert.Equal(TimeSpan.FromMilliseconds(200), config.TcpFallback.ProbeAfter);
        Assert.Equal(TimeSpan.FromMilliseconds(300), config.TcpFallback.ProbeTimeout);
    }

    [Fact]
    public void Parse_TcpFallbackTimerOutOfRange_NamesLineAndKey()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() =>
            WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nTcpFallbackProbeTimeoutMs = 20\n"));
        Assert.Equal(3, error.Line);
        Assert.Equal("TcpFallbackProbeTimeoutMs", error.Key);
        Assert.Contains("from 100 to 60000", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_NoTcpFallback_IsAuto()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n[Peer]\nPublicKey = {s_peer}\n");
        Assert.Equal(TcpFallbackMode.Auto, config.Peers[0].TcpFallback);
    }

    [Fact]
    public void Parse_TcpFallbackUnknownValue_NamesLineKeyAndTheChoices()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() =>
            WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n[Peer]\nPublicKey = {s_peer}\nTcpFallback = sometimes\n"));
        Assert.Equal(5, error.Line);
        Assert.Equal("TcpFallback", error.Key);
        Assert.Contains("must be auto, off or only, not 'sometimes'", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("PrivateKey {0}")]
    [InlineData("{0}")]
    [InlineData("PrivateKey: {0}")]
    public void Parse_LineWithoutKeyAndValue_IsRefused_WithoutRepeatingTheKeyItMayHold(string line)
    {
        var text = "[Interface]\n" + string.Format(System.Globalization.CultureInfo.InvariantCulture, line, s_private) + "\n";

        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse(text));

        Assert.Equal(2, error.Line);
        Assert.Contains("expected 'Key = Value'", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(s_private.ToString()[..20], error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("4660", 4660u)]
    [InlineData("0x1234", 4660u)]
    [InlineData("off", 0u)]
    [InlineData("4294967295", uint.MaxValue)]
    public void Parse_FwMark_ReadAsWgReadsIt(string value, uint expected)
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nFwMark = {value}\n");
        Assert.Equal(expected, config.FwMark);
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("0x")]
    [InlineData("4294967296")]
    [InlineData("mark")]
    public void Parse_BadFwMark_IsRefusedNamingTheKey(string value)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nFwMark = {value}\n"));
        Assert.Equal(3, error.Line);
        Assert.Contains("FwMark", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_NoMtu_DefaultsTo1420()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n");
        Assert.Equal(1420, config.Mtu);
        Assert.Null(config.ListenPort);
    }

    [Theory]
    [InlineData("[Interface]\nPrivateKey = nope\n", 2, "PrivateKey")]
    [InlineData("[Interface]\nPRIVATEKEY = {0}\nListenPort = 70000\n", 3, "ListenPort")]
    [InlineData("[Interface]\nPrivateKey = {0}\nMTU = 9\n", 3, "MTU")]
    [InlineData("[Interface]\nPrivateKey = {0}\nDNS = 1.1.1.1\n", 3, "DNS")]
    [InlineData("[Interface]\nPrivateKey = {0}\nColour = blue\n", 3, "Colour")]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nAllowedIPs = 198.19.0.0/33\n", 4, "AllowedIPs")]
    [InlineData("[Interface]\nPrivateKey = {0}\n\n[Peer]\nAllowedIPs = 198.19.0.2/32\n", 4, "PublicKey")]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {0}\nEndpoint = example.com:51820\n", 5, "Endpoint")]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {0}\nEndpoint = 198.18.0.2\n", 5, "Endpoint")]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {0}\nPersistentKeepalive = soon\n", 5, "PersistentKeepalive")]
    [InlineData("ListenPort = 1\n", 1, "ListenPort")]
    [InlineData("[Interface]\nListenPort = 1\n", 1, "PrivateKey")]
    public void Parse_Problem_NamesLineAndKey(string template, int line, string key)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse(string.Format(System.Globalization.CultureInfo.InvariantCulture, template, s_private)));
        Assert.Equal(line, error.Line);
        Assert.Equal(key, error.Key);
        Assert.StartsWith($"line {line}: {key}: ", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_UnknownSection_NamesLine()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n[Peers]\n"));
        Assert.Equal(3, error.Line);
        Assert.Contains("[Peers]", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_SamePeerTwice_Refused()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() =>
            WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n[Peer]\nPublicKey = {s_peer}\n[Peer]\nPublicKey = {s_peer}\n"));
        Assert.Equal(5, error.Line);
    }

    [Theory]
    [InlineData("[Interface]\nPrivateKey = {0}\nMTU = 1380\nListenPort = 1\nmtu = 1420\n", 5, "mtu", 3)]
    [InlineData("[Interface]\nPrivateKey = {0}\nPrivateKey = {0}\n", 3, "PrivateKey", 2)]
    [InlineData("[Interface]\nPrivateKey = {0}\nListenPort = 1\nListenPort = 2\n", 4, "ListenPort", 3)]
    [InlineData("[Interface]\nPrivateKey = {0}\nTcpFallbackProbeAfterMs = 500\nTcpFallbackProbeAfterMs = 600\n", 4, "TcpFallbackProbeAfterMs", 3)]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {1}\nEndpoint = 198.18.0.2:51820\nEndpoint = 198.18.0.3:51820\n", 6, "Endpoint", 5)]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {1}\nPublicKey = {1}\n", 5, "PublicKey", 4)]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {1}\nPresharedKey = {1}\nPresharedKey = {1}\n", 6, "PresharedKey", 5)]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {1}\nPersistentKeepalive = 25\nPersistentKeepalive = off\n", 6, "PersistentKeepalive", 5)]
    [InlineData("[Interface]\nPrivateKey = {0}\n[Peer]\nPublicKey = {1}\nTcpFallback = off\nTcpFallback = only\n", 6, "TcpFallback", 5)]
    public void Parse_KeyThatMayAppearOncePerSection_GivenTwice_IsRefusedAtTheRepeat(string template, int line, string key, int first)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() =>
            WireGuardConfigParser.Parse(string.Format(System.Globalization.CultureInfo.InvariantCulture, template, s_private, s_peer)));

        Assert.Equal(line, error.Line);
        Assert.Equal(key, error.Key);
        Assert.StartsWith($"line {line}: {key}: given again (first on line {first}); it may appear once per [", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_AddressAllowedIpsAndEachPeersOwnKeys_MayRepeat()
    {
        var config = WireGuardConfigParser.Parse($"""
            [Interface]
            PrivateKey = {s_private}
            Address = 198.19.0.1/24
            Address = fd00::1/64
            [Peer]
            PublicKey = {s_peer}
            Endpoint = 198.18.0.2:51820
            AllowedIPs = 198.19.0.2/32
            AllowedIPs = fd00::2/128
            [Peer]
            PublicKey = {s_peer2}
            Endpoint = 198.18.0.3:51820
            """);

        Assert.Equal(["198.19.0.1/24", "fd00::1/64"], config.Addresses.Select(a => a.ToString()));
        Assert.Equal(["198.19.0.2/32", "fd00::2/128"], config.Peers[0].AllowedIps.Select(a => a.ToString()));
        Assert.Equal("198.18.0.3:51820", config.Peers[1].Endpoint!.ToString());
    }

    [Theory]
    [InlineData("")]
    [InlineData("\n\n")]
    [InlineData("# nothing yet\n   \n")]
    public void Parse_NothingButBlankLinesAndComments_SaysItIsEmpty(string text)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse(text));

        Assert.Equal(0, error.Line);
        Assert.DoesNotContain("line 0", error.Message, StringComparison.Ordinal);
        Assert.Contains("empty", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_NoInterfaceSection_SaysSoWithoutALineNumber()
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse($"[Peer]\nPublicKey = {s_peer}\n"));

        Assert.DoesNotContain("line 0", error.Message, StringComparison.Ordinal);
        Assert.Contains("[Interface]", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("off", false, null)]
    [InlineData("auto", true, null)]
    [InlineData("AUTO", true, null)]
    [InlineData("1234", true, 1234u)]
    [InlineData("4294967295", true, 4294967295u)]
    public void Parse_Table_ReadsOffAutoOrATableNumber(string value, bool addRoutes, uint? table)
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nTable = {value}\n");

        Assert.Equal(addRoutes, config.AddRoutes);
        Assert.Equal(table, config.RouteTable);
    }

    [Fact]
    public void Parse_NoTable_AddsRoutesToTheMainTableAsAuto()
    {
        var config = WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n");

        Assert.True(config.AddRoutes);
        Assert.Null(config.RouteTable);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("-1")]
    [InlineData("4294967296")]
    [InlineData("blue")]
    public void Parse_BadTable_NamesTheKeyAndWhatItTakes(string value)
    {
        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\nTable = {value}\n"));

        Assert.Equal("Table", error.Key);
        Assert.Contains("off, auto or a routing table's number", error.Message, StringComparison.Ordinal);
    }

    /// <summary>What wg-quick does itself (it strips these keys before 'wg setconf'): the message says how to have them applied.</summary>
    [Theory]
    [InlineData("DNS = 198.18.0.53")]
    [InlineData("PreUp = true")]
    [InlineData("PostUp = true")]
    [InlineData("PreDown = true")]
    [InlineData("PostDown = true")]
    [InlineData("SaveConfig = true")]
    public void Parse_WgQuickOnlyKey_NamesWgQuickWithSalvoAsItsUserSpaceImplementation(string line)
    {
        var key = line[..line.IndexOf(' ', StringComparison.Ordinal)];

        var error = Assert.Throws<TunnelConfigurationException>(() => WireGuardConfigParser.Parse($"[Interface]\nPrivateKey = {s_private}\n{line}\n"));

        Assert.Equal(key, error.Key);
        Assert.Contains($"{key}: is done by wg-quick itself", error.Message, StringComparison.Ordinal);
        Assert.Contains("WG_QUICK_USERSPACE_IMPLEMENTATION", error.Message, StringComparison.Ordinal);
    }
}
