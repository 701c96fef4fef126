using System.Globalization;
using System.Text;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Writes the answer to <c>get=1</c> in the order and form wireguard-go's device/uapi.go writes it: keys in lowercase
/// hex, the private key, listen port and firewall mark only when set, then per peer its keys, endpoint, handshake
/// time since the Unix epoch, byte counts, keepalive and AllowedIPs. The caller adds the <c>errno=0</c> line.
/// </summary>
internal static class UapiGetWriter
{
    /// <summary>Peers whose state is taken under the engine's lock at once: about 400 KB of text, a few ms of lock.</summary>
    public const int PageSize = 1_024;

    /// <summary>The whole answer into <paramref name="text"/> (tests; the connection writes it a page at a time).</summary>
    public static void Write(StringBuilder text, TunnelDevice device)
    {
        var peers = WriteDevice(text, device);
        var page = new List<TunnelEngine.ControlPeer>(PageSize);
        for (var start = 0; start < peers.Length; start += PageSize)
        {
            page.Clear();
            device.Engine.GetControlPeers(peers, start, PageSize, page);
            foreach (var peer in page)
            {
                WritePeer(text, peer);
            }
        }
    }

    /// <summary>Writes the device's lines and returns the snapshot of peers to write after them, a page at a time.</summary>
    public static Protocol.Peer[] WriteDevice(StringBuilder text, TunnelDevice device)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(device);
        var (privateKey, peers) = device.Engine.GetControlSnapshot();
        if (privateKey is not null)
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

        return peers;
    }

    /// <summary>Writes one peer's lines.</summary>
    public static void WritePeer(StringBuilder text, TunnelEngine.ControlPeer peer)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(peer);
        var status = peer.Status;
        Key(text, "public_key", status.PublicKey);
        Key(text, "preshared_key", peer.PresharedKey);
        text.Append("protocol_version=1\n");
        if (status.Endpoint is { } endpoint)
        {
            text.Append("endpoint=").Append(endpoint.ToString()).Append('\n');
        }

        // Nanoseconds since the epoch, split as wireguard-go splits them; 0 and 0 before the first handshake.
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

    private static void Key(StringBuilder text, string name, WireGuardKey key) =>
        text.Append(name).Append('=').Append(Convert.ToHexStringLower(key.Bytes)).Append('\n');

    private static void Line(StringBuilder text, string name, long value) =>
        text.Append(name).Append('=').Append(value.ToString(CultureInfo.InvariantCulture)).Append('\n');
}
