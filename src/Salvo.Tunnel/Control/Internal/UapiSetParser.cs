using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Control;

/// <summary>
/// Reads the body of a <c>set=1</c> request (wireguard.com/xplatform, "Configuration Protocol") one line at a time, as
/// it arrives: device keys, then per peer a <c>public_key</c> line and that peer's keys. Nothing is applied here; the
/// caller applies <see cref="Change"/> only once the request's blank line has come and <see cref="Errno"/> is 0, so a
/// bad or missing line anywhere changes nothing. The errno is the one wireguard-go's device/uapi.go answers with.
/// </summary>
/// <remarks>
/// Lines are held as parsed values, never as text, and after the first refusal the change is dropped and the rest of
/// the request only counted, so a request holds at most its limits' worth of peers and AllowedIPs. An error names the
/// line by number and the key by name (a known key only); it never holds a value, which could be a key.
/// </remarks>
internal sealed class UapiSetParser(UapiLimits limits)
{
    private static readonly string[] KnownKeys =
    [
        "private_key", "listen_port", "fwmark", "replace_peers", "public_key", "update_only", "remove", "preshared_key",
        "endpoint", "persistent_keepalive_interval", "replace_allowed_ips", "allowed_ip", "protocol_version",
    ];

    private PeerChange? _peer;
    private int _lines;
    private int _allowedIps;

    /// <summary>The change read so far; empty after a refusal.</summary>
    public TunnelChange Change { get; private set; } = new();

    /// <summary>0, or the errno of the first refused line.</summary>
    public int Errno { get; private set; }

    /// <summary>Why the first refused line was refused, for the log.</summary>
    public UapiRefusal Refusal { get; private set; }

    /// <summary>What was wrong with the first refused line, without its value; null while nothing is refused.</summary>
    public string? Error { get; private set; }

    /// <summary>Parses <paramref name="lines"/> (without the blank line that ends the request).</summary>
    /// <returns>0, or the errno to answer with; <paramref name="error"/> then says which line and why.</returns>
    public static int TryParse(IEnumerable<string> lines, out TunnelChange change, out string? error)
    {
        ArgumentNullException.ThrowIfNull(lines);
        var parser = new UapiSetParser(UapiLimits.Default);
        foreach (var line in lines)
        {
            parser.Add(line);
        }

        change = parser.Change;
        error = parser.Error;
        return parser.Errno;
    }

    /// <summary>Reads one line of the body (not the blank line that ends it).</summary>
    public void Add(ReadOnlySpan<char> line)
    {
        _lines++;
        if (Errno != UapiErrno.None)
        {
            return;
        }

        if (line.Length > limits.MaxLineBytes)
        {
            Refuse(UapiErrno.IO, UapiRefusal.LineTooLong, $"longer than {limits.MaxLineBytes} bytes");
            return;
        }

        var equals = line.IndexOf('=');
        if (equals <= 0)
        {
            Refuse(UapiErrno.Protocol, UapiRefusal.Malformed, "<malformed line>: not key=value");
            return;
        }

        var key = line[..equals];
        var value = line[(equals + 1)..];
        if (key is "public_key")
        {
            AddPeer(value);
            return;
        }

        var error = _peer is null ? SetDevice(key, value) : SetPeer(_peer, key, value);
        if (error is not null)
        {
            Refuse(UapiErrno.Invalid, UapiRefusal.Invalid, error);
        }
    }

    private void AddPeer(ReadOnlySpan<char> value)
    {
        // Decoded straight into the change's own storage: no key object per peer.
        Span<byte> publicKey = stackalloc byte[WireGuardKey.Size];
        if (!UapiValues.TryDecodeKey(value, publicKey) || !publicKey.ContainsAnyExcept((byte)0))
        {
            Refuse(UapiErrno.Invalid, UapiRefusal.Invalid, "public_key must be 64 hex digits, not all zero");
            return;
        }

        if (Change.Peers.Count == limits.MaxPeersPerRequest)
        {
            Refuse(UapiErrno.TooLarge, UapiRefusal.RequestTooLarge, $"more than {limits.MaxPeersPerRequest} peers in one request");
            return;
        }

        _peer = new PeerChange(publicKey);
        Change.Peers.Add(_peer);
    }

    private string? SetDevice(ReadOnlySpan<char> key, ReadOnlySpan<char> value)
    {
        switch (key)
        {
            case "private_key":
                if (!UapiValues.TryParseKey(value, out var privateKey))
                {
                    return "private_key must be 64 hex digits";
                }

                Change.SetsPrivateKey = true;
                Change.PrivateKey = privateKey;
                return null;
            case "listen_port":
                if (!UapiValues.TryParseNumber(value, ushort.MaxValue, out var port))
                {
                    return "listen_port must be a number from 0 to 65535";
                }

                Change.ListenPort = (int)port;
                return null;
            case "fwmark":
                if (!UapiValues.TryParseNumber(value, uint.MaxValue, out var mark))
                {
                    return "fwmark must be a number from 0 to 4294967295";
                }

                Change.FwMark = mark;
                return null;
            case "replace_peers":
                Change.ReplacePeers |= value is "true";
                return IsTrue(value, "replace_peers");
            default:
                return $"unknown device key ({Describe(key)})";
        }
    }

    private string? SetPeer(PeerChange peer, ReadOnlySpan<char> key, ReadOnlySpan<char> value)
    {
        switch (key)
        {
            // No lambdas here: one capturing the peer made a closure object on every peer line, four a peer.
            case "update_only":
                peer.UpdateOnly |= value is "true";
                return IsTrue(value, "update_only");
            case "remove":
                peer.Remove |= value is "true";
                return IsTrue(value, "remove");
            case "replace_allowed_ips":
                if (value is "true")
                {
                    _allowedIps -= peer.AllowedIpCount;
                    peer.ReplaceAllowedIps = true;
                    peer.ClearAllowedIps();
                }

                return IsTrue(value, "replace_allowed_ips");
            case "preshared_key":
                if (!UapiValues.TryParseKey(value, out var presharedKey))
                {
                    return "preshared_key must be 64 hex digits";
                }

                peer.SetsPresharedKey = true;
                peer.PresharedKey = presharedKey;
                return null;
            case "endpoint":
                // wg resolves host names itself and sends an address, as wireguard-go requires.
                if (!UapiValues.TryParseEndpoint(value, out var endpoint))
                {
                    return "endpoint must be a.b.c.d:port or [IPv6]:port, port 1 to 65535";
                }

                peer.EndpointAddress = endpoint;
                return null;
            case "persistent_keepalive_interval":
                if (!UapiValues.TryParseNumber(value, ushort.MaxValue, out var seconds))
                {
                    return "persistent_keepalive_interval must be a number from 0 to 65535";
                }

                peer.PersistentKeepalive = TimeSpan.FromSeconds(seconds);
                return null;
            case "allowed_ip":
                Span<byte> address = stackalloc byte[16];
                if (!UapiValues.TryParsePrefix(value, address, out var size, out var length))
                {
                    return "allowed_ip must be an address and a prefix length (a.b.c.d/n or IPv6/n)";
                }

                if (_allowedIps == limits.MaxAllowedIpsPerRequest)
                {
                    Refuse(UapiErrno.TooLarge, UapiRefusal.RequestTooLarge, $"more than {limits.MaxAllowedIpsPerRequest} allowed_ip lines in one request");
                    return null;
                }

                _allowedIps++;
                peer.AddAllowedIp(address[..size], length);
                return null;
            case "protocol_version":
                return value is "1" ? null : "protocol_version must be 1";
            default:
                return $"unknown peer key ({Describe(key)})";
        }
    }

    private static string? IsTrue(ReadOnlySpan<char> value, string key) =>
        value is "true" ? null : $"{key} takes only 'true'";

    /// <summary>
    /// A key of the protocol by name (one in the wrong section, as <c>allowed_ip</c> before any <c>public_key</c>), any
    /// other by its length only: it could be a value sent on the wrong side of its '='.
    /// </summary>
    private static string Describe(ReadOnlySpan<char> key)
    {
        foreach (var known in KnownKeys)
        {
            if (key.SequenceEqual(known))
            {
                return known;
            }
        }

        return $"{key.Length} characters";
    }

    private void Refuse(int errno, UapiRefusal refusal, string error)
    {
        Errno = errno;
        Refusal = refusal;
        Error = $"line {_lines}: {error}";
        Change = new TunnelChange();
        _peer = null;
    }
}
