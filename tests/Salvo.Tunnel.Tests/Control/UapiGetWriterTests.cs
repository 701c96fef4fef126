using System.Globalization;
using System.Text;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// The <c>get=1</c> answer written as bytes from each peer's own fields, against the text the writer made before from
/// <see cref="PeerStatus"/> and <c>ToString</c> (kept below as the reference): the same lines, byte for byte, for the
/// address forms where a hand-written formatter could drift (zones, IPv4 inside IPv6, compressed zeros, /0).
/// </summary>
public sealed class UapiGetWriterTests
{
    [Fact]
    public void Write_PeersOfEveryAddressForm_SameTextAsTheStatusBasedWriter()
    {
        using var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey(), FwMark = 7 }, new MemoryTun("uapiget0"));
        var set = new StringBuilder("replace_peers=true\n");
        string[][] allowed =
        [
            ["0.0.0.0/0", "::/0"],
            ["10.1.2.3/32", "255.255.255.255/32", "fd00:5a1::2:3/128"],
            ["::ffff:10.0.0.0/104", "::1.2.3.4/128", "2001:db8:0:0:1:0:0:1/128", "2001:db8::/32", "fe80::/10"],
            [],
        ];
        string[] endpoints = ["127.0.0.1:1", "[fe80::1%2]:51820", "[::ffff:198.51.100.7]:65535", "[2001:db8::1]:9", "255.255.255.255:51820"];
        for (var i = 0; i < 10; i++)
        {
            set.Append("public_key=").Append(Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes)).Append('\n');
            if (i % 3 == 0)
            {
                set.Append("preshared_key=").Append(Convert.ToHexStringLower(WireGuardKey.GeneratePresharedKey().Bytes)).Append('\n');
            }

            if (i % 4 != 3)
            {
                set.Append("endpoint=").Append(endpoints[i % endpoints.Length]).Append('\n');
            }

            set.Append(CultureInfo.InvariantCulture, $"persistent_keepalive_interval={(i % 2 == 0 ? 0 : 25 * i)}\nreplace_allowed_ips=true\n");
            foreach (var prefix in allowed[i % allowed.Length])
            {
                set.Append("allowed_ip=").Append(prefix).Append('\n');
            }
        }

        Assert.Equal(UapiErrno.None, UapiSetParser.TryParse(set.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries), out var change, out var error));
        Assert.True(device.Configure(change, out error) == UapiErrno.None, error);

        var written = new StringBuilder();
        UapiGetWriter.Write(written, device);

        Assert.Equal(StatusBasedAnswer(device), written.ToString());
    }

    /// <summary>
    /// A dump of dual-stack peers with IPv6 endpoints writes them without an object: an <see cref="System.Net.IPAddress"/>
    /// per IPv6 AllowedIP and a string per IPv6 endpoint were about 200 bytes a peer of a million-peer dump.
    /// </summary>
    [Fact]
    public void WriteControlPeers_IPv6AllowedIpsAndEndpoints_AllocatesNothing()
    {
        const int Peers = 1_000;
        using var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, new MemoryTun("uapiget1"));
        var set = new StringBuilder("replace_peers=true\n");
        for (var i = 2; i < Peers + 2; i++)
        {
            set.Append("public_key=").Append(Convert.ToHexStringLower(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes)).Append('\n')
                .Append(CultureInfo.InvariantCulture, $"endpoint=[2001:db8::{i:x}]:51820\nreplace_allowed_ips=true\n")
                .Append(CultureInfo.InvariantCulture, $"allowed_ip=10.0.{i >> 8}.{i & 255}/32\nallowed_ip=fd00:5a1::{i:x}/128\n");
        }

        Assert.Equal(UapiErrno.None, UapiSetParser.TryParse(set.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries), out var change, out var error));
        Assert.True(device.Configure(change, out error) == UapiErrno.None, error);
        var peers = device.Engine.GetControlSnapshot().Peers;
        var answer = new System.Buffers.ArrayBufferWriter<byte>(1 << 20);
        device.Engine.WriteControlPeers(peers, 0, 1, answer);
        answer.ResetWrittenCount();

        var before = GC.GetAllocatedBytesForCurrentThread();
        device.Engine.WriteControlPeers(peers, 0, Peers, answer);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Contains("endpoint=[2001:db8::3e9]:51820\nlast_handshake_time_sec=0", Encoding.ASCII.GetString(answer.WrittenSpan), StringComparison.Ordinal);
    }

    /// <summary>What the writer wrote before it wrote bytes: from each peer's <see cref="PeerStatus"/>, through strings.</summary>
    private static string StatusBasedAnswer(TunnelDevice device)
    {
        var text = new StringBuilder();
        if (device.Engine.PrivateKey is { } privateKey)
        {
            Key(text, "private_key", privateKey);
        }

        if (device.ListenPort != 0)
        {
            Line(text, "listen_port", device.ListenPort);
        }

        if (device.FwMark != 0)
        {
            Line(text, "fwmark", device.FwMark);
        }

        var presharedKeys = device.Engine.GetControlSnapshot().Peers.ToDictionary(peer => peer.PublicKeyText, peer => WireGuardKey.FromBytes(peer.PresharedKey));
        foreach (var status in device.Engine.GetPeers())
        {
            Key(text, "public_key", status.PublicKey);
            Key(text, "preshared_key", presharedKeys[status.PublicKey]);
            text.Append("protocol_version=1\n");
            if (status.Endpoint is { } endpoint)
            {
                text.Append("endpoint=").Append(endpoint.ToString()).Append('\n');
            }

            var nanoseconds = status.LatestHandshake is { } handshake ? (handshake - DateTimeOffset.UnixEpoch).Ticks * 100 : 0;
            Line(text, "last_handshake_time_sec", nanoseconds / 1_000_000_000);
            Line(text, "last_handshake_time_nsec", nanoseconds % 1_000_000_000);
            Line(text, "tx_bytes", status.SentBytes);
            Line(text, "rx_bytes", status.ReceivedBytes);
            Line(text, "persistent_keepalive_interval", (long)(status.PersistentKeepalive?.TotalSeconds ?? 0));
            foreach (var prefix in status.AllowedIps)
            {
                text.Append("allowed_ip=").Append(prefix.ToString()).Append('\n');
            }
        }

        return text.ToString();
    }

    private static void Key(StringBuilder text, string name, WireGuardKey key) =>
        text.Append(name).Append('=').Append(Convert.ToHexStringLower(key.Bytes)).Append('\n');

    private static void Line(StringBuilder text, string name, long value) =>
        text.Append(name).Append('=').Append(value.ToString(CultureInfo.InvariantCulture)).Append('\n');
}
