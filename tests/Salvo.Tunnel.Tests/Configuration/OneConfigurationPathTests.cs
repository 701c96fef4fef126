using System.Net;
using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Configuration;

/// <summary>
/// A configuration file and the control socket are two ways into one change and one Configure: the same settings given
/// either way leave the device in the same state, down to the byte of what <c>get</c> and <c>wg show dump</c> answer.
/// </summary>
public sealed class OneConfigurationPathTests
{
    private static readonly string s_prefix = $"oc{Environment.ProcessId % 1_000_000}";

    [Fact]
    public void ControlSocketSet_SameSettingsAsAFile_GetAnswersTheSameBytes() => AssertSameAnswer(fwMark: 0);

    [RequiresFact(Requirement.Linux | Requirement.Root)]
    public void ControlSocketSet_SameSettingsAsAFileWithAFirewallMark_GetAnswersTheSameBytes() => AssertSameAnswer(fwMark: 0x5a1);

    [RequiresFact(Requirement.Linux | Requirement.Root, Tools = ["wg"])]
    public void WgSetconf_TheSameFile_WgShowDumpIsTheSameBytes()
    {
        var sample = new Sample(FreeUdpPort(), fwMark: 0x5a1);
        string fromFile;
        using (var device = TunnelDevice.Start(WireGuardConfigParser.Parse(sample.File), new MemoryTun($"{s_prefix}f")))
        using (WireGuardControlSocket.Start(device))
        {
            fromFile = Wg("show", device.InterfaceName, "dump");
        }

        var file = Path.GetTempFileName();
        try
        {
            File.WriteAllText(file, sample.File);
            using var device = TunnelDevice.Start(new TunnelConfiguration(), new MemoryTun($"{s_prefix}w"));
            using var control = WireGuardControlSocket.Start(device);
            Wg("setconf", device.InterfaceName, file);

            Assert.Equal(fromFile, Wg("show", device.InterfaceName, "dump"));
        }
        finally
        {
            File.Delete(file);
        }

        // Three peers: the one with the device's own key is ignored either way, as wireguard-go ignores it.
        Assert.Equal(4, fromFile.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        Assert.DoesNotContain(sample.PrivateKey.DerivePublicKey() + "\t(none)", fromFile, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("PresharedKey")]
    [InlineData("Endpoint")]
    [InlineData("PersistentKeepalive")]
    [InlineData("AllowedIPs")]
    public void PeerKey_GivenInAFileOrThroughTheControlSocket_GetShowsItTheSameAndItSetsBackTheSame(string key)
    {
        var privateKey = WireGuardKey.GeneratePrivateKey();
        var peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var presharedKey = WireGuardKey.GeneratePresharedKey();
        var port = FreeUdpPort();
        var (fileLine, setLine) = key switch
        {
            "PresharedKey" => ($"PresharedKey = {presharedKey}", $"preshared_key={Hex(presharedKey)}"),
            "Endpoint" => ("Endpoint = [::1]:40007", "endpoint=[::1]:40007"),
            "PersistentKeepalive" => ("PersistentKeepalive = 17", "persistent_keepalive_interval=17"),
            _ => ("AllowedIPs = 198.19.7.0/24, fd00:19:7::/64", "allowed_ip=198.19.7.0/24\nallowed_ip=fd00:19:7::/64"),
        };
        var file = $"[Interface]\nPrivateKey = {privateKey}\nListenPort = {port}\n\n[Peer]\nPublicKey = {peer}\n{fileLine}\n";
        var set = $"private_key={Hex(privateKey)}\nlisten_port={port}\nreplace_peers=true\npublic_key={Hex(peer)}\nreplace_allowed_ips=true\n{setLine}\n";

        var fromFile = GetFromFile(file);
        var fromSet = GetAfterSet(set);
        var setBack = GetAfterSet(Settable(fromFile));

        Assert.Equal(fromFile, fromSet);
        Assert.Equal(fromFile, setBack);
        foreach (var line in setLine.Split('\n'))
        {
            Assert.Contains($"\n{line}\n", fromFile, StringComparison.Ordinal);
        }
    }

    private static void AssertSameAnswer(uint fwMark)
    {
        var sample = new Sample(FreeUdpPort(), fwMark);

        var fromFile = GetFromFile(sample.File);
        var fromSet = GetAfterSet(sample.Set);

        Assert.Equal(fromFile, fromSet);
        Assert.StartsWith($"private_key={Hex(sample.PrivateKey)}\nlisten_port={sample.ListenPort}\n", fromFile, StringComparison.Ordinal);
        Assert.Equal(fwMark != 0, fromFile.Contains($"\nfwmark={fwMark}\n", StringComparison.Ordinal));
        Assert.Equal(3, CountOf(fromFile, "public_key="));
        Assert.Equal(2, CountOf(fromFile, "persistent_keepalive_interval=0"));
        Assert.Equal(1, CountOf(fromFile, "persistent_keepalive_interval=25"));
        Assert.Equal(6, CountOf(fromFile, "allowed_ip="));
        Assert.DoesNotContain($"public_key={Hex(sample.PrivateKey.DerivePublicKey())}", fromFile, StringComparison.Ordinal);
    }

    /// <summary>The <c>get</c> answer of a device started from <paramref name="file"/>.</summary>
    private static string GetFromFile(string file)
    {
        using var device = TunnelDevice.Start(WireGuardConfigParser.Parse(file), new MemoryTun($"{s_prefix}f"));
        return Get(device, socketPath => string.Empty);
    }

    /// <summary>The <c>get</c> answer of a device started with nothing and given <paramref name="set"/> through its control socket.</summary>
    private static string GetAfterSet(string set)
    {
        using var device = TunnelDevice.Start(new TunnelConfiguration(), new MemoryTun($"{s_prefix}s"));
        return Get(device, socketPath => UapiClient.Request(socketPath, $"set=1\n{set}\n"));
    }

    private static string Get(TunnelDevice device, Func<string, string> before)
    {
        var socketPath = Path.Combine(Path.GetTempPath(), $"salvo-oc-{Environment.ProcessId}-{Guid.NewGuid():N}.sock");
        using var control = WireGuardControlSocket.Start(device, socketPath);
        var answer = before(socketPath);
        Assert.True(answer.Length == 0 || answer == "errno=0\n", answer);
        return UapiClient.Request(socketPath, "get=1\n\n");
    }

    /// <summary>The lines of a <c>get</c> answer that <c>set</c> takes, as <c>wg syncconf</c> feeds back what <c>wg showconf</c> read.</summary>
    private static string Settable(string get)
    {
        string[] settable = ["private_key", "listen_port", "fwmark", "public_key", "preshared_key", "endpoint", "persistent_keepalive_interval", "allowed_ip"];
        var set = new StringBuilder("replace_peers=true\n");
        foreach (var line in get.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            var key = line[..line.IndexOf('=', StringComparison.Ordinal)];
            if (settable.Contains(key))
            {
                set.Append(line).Append('\n');
            }

            if (key == "public_key")
            {
                set.Append("replace_allowed_ips=true\n");
            }
        }

        return set.ToString();
    }

    private static string Wg(params string[] arguments) => ExternalTool.Run("wg", arguments);

    private static int CountOf(string text, string line) => text.Split('\n').Count(l => l == line || (line.EndsWith('=') && l.StartsWith(line, StringComparison.Ordinal)));

    private static string Hex(WireGuardKey key) => Convert.ToHexStringLower(key.Bytes);

    /// <summary>A UDP port free now: the devices bind it one after another, each closing it before the next.</summary>
    private static int FreeUdpPort()
    {
        using var socket = new Socket(AddressFamily.InterNetworkV6, SocketType.Dgram, ProtocolType.Udp) { DualMode = true };
        socket.Bind(new IPEndPoint(IPAddress.IPv6Any, 0));
        return ((IPEndPoint)socket.LocalEndPoint!).Port;
    }

    /// <summary>
    /// One configuration as a file and as the set request <c>wg setconf</c> sends for it: three peers (preshared keys,
    /// a keepalive, several AllowedIPs on repeated lines, endpoints of both families) and a fourth with the device's
    /// own key, which both ways ignore. The peers with endpoints have no keepalive, so nothing is sent and the byte
    /// counts stay 0.
    /// </summary>
    private sealed class Sample
    {
        public Sample(int listenPort, uint fwMark)
        {
            ListenPort = listenPort;
            var mark = fwMark == 0 ? string.Empty : $"FwMark = 0x{fwMark:x}\n";
            var setMark = fwMark == 0 ? string.Empty : $"fwmark={fwMark}\n";
            var (p1, p2, p3) = (NewPeer(), NewPeer(), NewPeer());
            var (psk1, psk2) = (WireGuardKey.GeneratePresharedKey(), WireGuardKey.GeneratePresharedKey());
            var self = PrivateKey.DerivePublicKey();
            File = $"""
                [Interface]
                PrivateKey = {PrivateKey}
                ListenPort = {listenPort}
                {mark}
                [Peer]
                PublicKey = {p1}
                PresharedKey = {psk1}
                Endpoint = 127.0.0.1:40001
                AllowedIPs = 198.19.1.0/24, fd00:19:1::/64
                AllowedIPs = 198.19.2.7/32

                [Peer]
                PublicKey = {p2}
                PresharedKey = {psk2}
                PersistentKeepalive = 25
                AllowedIPs = 198.19.3.0/24, 198.19.4.0/25

                [Peer]
                PublicKey = {p3}
                Endpoint = [::1]:40003
                AllowedIPs = 198.19.5.5/32

                [Peer]
                PublicKey = {self}
                AllowedIPs = 198.19.9.0/24
                """;
            Set = $"private_key={Hex(PrivateKey)}\nlisten_port={listenPort}\n{setMark}replace_peers=true\n" +
                $"public_key={Hex(p1)}\npreshared_key={Hex(psk1)}\nendpoint=127.0.0.1:40001\nreplace_allowed_ips=true\n" +
                "allowed_ip=198.19.1.0/24\nallowed_ip=fd00:19:1::/64\nallowed_ip=198.19.2.7/32\n" +
                $"public_key={Hex(p2)}\npreshared_key={Hex(psk2)}\npersistent_keepalive_interval=25\nreplace_allowed_ips=true\n" +
                "allowed_ip=198.19.3.0/24\nallowed_ip=198.19.4.0/25\n" +
                $"public_key={Hex(p3)}\nendpoint=[::1]:40003\nreplace_allowed_ips=true\nallowed_ip=198.19.5.5/32\n" +
                $"public_key={Hex(self)}\nreplace_allowed_ips=true\nallowed_ip=198.19.9.0/24\n";
        }

        public WireGuardKey PrivateKey { get; } = WireGuardKey.GeneratePrivateKey();

        public int ListenPort { get; }

        /// <summary>The configuration file.</summary>
        public string File { get; }

        /// <summary>The body of the set request for the same configuration.</summary>
        public string Set { get; }

        private static WireGuardKey NewPeer() => WireGuardKey.GeneratePrivateKey().DerivePublicKey();
    }
}
