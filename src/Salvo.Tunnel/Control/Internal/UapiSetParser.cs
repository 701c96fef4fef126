using System.Globalization;
using System.Net;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Reads the body of a <c>set=1</c> request (wireguard.com/xplatform, "Configuration Protocol"): device keys, then
/// per peer a <c>public_key</c> line and that peer's keys. The whole request is read before anything is applied, so
/// a bad line anywhere changes nothing; its errno is the one wireguard-go's device/uapi.go answers with.
/// </summary>
internal static class UapiSetParser
{
    /// <summary>Parses <paramref name="lines"/> (without the blank line that ends the request).</summary>
    /// <returns>0, or the errno to answer with; <paramref name="error"/> then says which line and why.</returns>
    public static int TryParse(IEnumerable<string> lines, out TunnelChange change, out string? error)
    {
        change = new TunnelChange();
        error = null;
        PeerChange? peer = null;
        foreach (var line in lines)
        {
            var equals = line.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                error = $"'{Shorten(line)}' is not key=value";
                return UapiErrno.Protocol;
            }

            var key = line[..equals];
            var value = line[(equals + 1)..];
            if (key == "public_key")
            {
                if (!TryParseHexKey(value, out var publicKey) || publicKey is null)
                {
                    error = "public_key must be 64 hex digits";
                    return UapiErrno.Invalid;
                }

                peer = new PeerChange(publicKey);
                change.Peers.Add(peer);
                continue;
            }

            error = peer is null ? SetDevice(change, key, value) : SetPeer(peer, key, value);
            if (error is not null)
            {
                return UapiErrno.Invalid;
            }
        }

        return UapiErrno.None;
    }

    private static string? SetDevice(TunnelChange change, string key, string value)
    {
        switch (key)
        {
            case "private_key":
                if (!TryParseHexKey(value, out var privateKey))
                {
                    return "private_key must be 64 hex digits";
                }

                change.SetsPrivateKey = true;
                change.PrivateKey = privateKey;
                return null;
            case "listen_port":
                if (!ushort.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var port))
                {
                    return $"listen_port must be 0 to 65535, not '{Shorten(value)}'";
                }

                change.ListenPort = port;
                return null;
            case "fwmark":
                if (!uint.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var mark))
                {
                    return $"fwmark must be a 32-bit number, not '{Shorten(value)}'";
                }

                change.FwMark = mark;
                return null;
            case "replace_peers":
                return IsTrue(value, key, () => change.ReplacePeers = true);
            default:
                return $"'{Shorten(key)}' is not a device key";
        }
    }

    private static string? SetPeer(PeerChange peer, string key, string value)
    {
        switch (key)
        {
            case "update_only":
                return IsTrue(value, key, () => peer.UpdateOnly = true);
            case "remove":
                return IsTrue(value, key, () => peer.Remove = true);
            case "replace_allowed_ips":
                return IsTrue(value, key, () =>
                {
                    peer.ReplaceAllowedIps = true;
                    peer.AllowedIps.Clear();
                });
            case "preshared_key":
                if (!TryParseHexKey(value, out var presharedKey))
                {
                    return "preshared_key must be 64 hex digits";
                }

                peer.SetsPresharedKey = true;
                peer.PresharedKey = presharedKey;
                return null;
            case "endpoint":
                // wg resolves host names itself and sends an address: IP:port, or [IPv6]:port.
                if (!IPEndPoint.TryParse(value, out var endpoint) || endpoint.Port == 0
                    || (endpoint.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 && !value.StartsWith('[')))
                {
                    return $"endpoint must be IP:port or [IPv6]:port, not '{Shorten(value)}'";
                }

                peer.Endpoint = endpoint;
                return null;
            case "persistent_keepalive_interval":
                if (!ushort.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var seconds))
                {
                    return $"persistent_keepalive_interval must be 0 to 65535 seconds, not '{Shorten(value)}'";
                }

                peer.PersistentKeepalive = TimeSpan.FromSeconds(seconds);
                return null;
            case "allowed_ip":
                try
                {
                    peer.AllowedIps.Add(IPPrefix.Parse(value));
                    return null;
                }
                catch (FormatException)
                {
                    return $"allowed_ip must be an address/length, not '{Shorten(value)}'";
                }
            case "protocol_version":
                return value == "1" ? null : $"protocol_version {Shorten(value)} is not supported (only 1)";
            default:
                return $"'{Shorten(key)}' is not a peer key";
        }
    }

    /// <summary>A key in hex; all zeros is "none" (null), as for an unset private or preshared key.</summary>
    internal static bool TryParseHexKey(string value, out WireGuardKey? key)
    {
        key = null;
        if (value.Length != 2 * WireGuardKey.Size)
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[WireGuardKey.Size];
        if (Convert.FromHexString(value, bytes, out _, out var written) != System.Buffers.OperationStatus.Done || written != WireGuardKey.Size)
        {
            return false;
        }

        key = bytes.ContainsAnyExcept((byte)0) ? WireGuardKey.FromBytes(bytes) : null;
        return true;
    }

    private static string? IsTrue(string value, string key, Action apply)
    {
        if (value != "true")
        {
            return $"{key} takes only 'true', not '{Shorten(value)}'";
        }

        apply();
        return null;
    }

    private static string Shorten(string text) => text.Length <= 80 ? text : text[..80] + "...";
}
