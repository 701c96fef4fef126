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
    public static void Write(StringBuilder text, TunnelDevice device)
    {
        foreach (var peer in WriteDevice(text, device))
        {
            WritePeer(text, peer);
        }
    }

    /// <summary>Writes the device's lines and returns the peers to write after them, as one snapshot.</summary>
    public static IReadOnlyList<TunnelEngine.ControlPeer> WriteDevice(StringBuilder text, TunnelDevice device)
    {
        ArgumentNullException.ThrowIfNull(text);
        ArgumentNullException.ThrowIfNull(device);
        var (privateKey, peers) = device.Engine.GetControlState();
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
