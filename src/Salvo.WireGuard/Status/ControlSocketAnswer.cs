using System.Globalization;
using Salvo.Tunnel;

namespace Salvo.WireGuard.Status;

/// <summary>
/// Turns a daemon's answers to <c>get=1</c> and (from Salvo) <c>get=salvo</c> into the <see cref="TunnelStatusDocument"/>
/// that <c>show</c> prints. Keys it does not know are passed over, as <c>wg</c> passes them over; a value that does not
/// parse is an error that names the key and never the value (a line may hold key material).
/// </summary>
internal static class ControlSocketAnswer
{
    public static TunnelStatusDocument ToDocument(
        string interfaceName, IReadOnlyList<(string Key, string Value)> get, IReadOnlyList<(string Key, string Value)>? salvo, DateTimeOffset now)
    {
        string publicKey = "(none)";
        var listenPort = 0;
        var peers = new List<PeerBuilder>();
        PeerBuilder? peer = null;
        foreach (var (key, value) in get)
        {
            switch (key)
            {
                case "private_key" when peer is null:
                    publicKey = WireGuardKey.FromBytes(Hex(interfaceName, key, value)).DerivePublicKey().ToString();
                    break;
                case "listen_port" when peer is null:
                    listenPort = (int)Number(interfaceName, key, value, ushort.MaxValue);
                    break;
                case "public_key":
                    peer = new PeerBuilder(WireGuardKey.FromBytes(Hex(interfaceName, key, value)).ToString());
                    peers.Add(peer);
                    break;
                case "endpoint" when peer is not null:
                    peer.Endpoint = value.Length <= 64 ? value : throw Bad(interfaceName, key);
                    break;
                case "last_handshake_time_sec" when peer is not null:
                    peer.HandshakeSeconds = Number(interfaceName, key, value, long.MaxValue / 1_000_000_000);
                    break;
                case "last_handshake_time_nsec" when peer is not null:
                    peer.HandshakeNanoseconds = Number(interfaceName, key, value, 999_999_999);
                    break;
                case "tx_bytes" when peer is not null:
                    peer.Sent = Number(interfaceName, key, value, long.MaxValue);
                    break;
                case "rx_bytes" when peer is not null:
                    peer.Received = Number(interfaceName, key, value, long.MaxValue);
                    break;
                case "persistent_keepalive_interval" when peer is not null:
                    peer.Keepalive = (int)Number(interfaceName, key, value, ushort.MaxValue);
                    break;
                case "allowed_ip" when peer is not null:
                    peer.AllowedIps.Add(value.Length <= 64 ? value : throw Bad(interfaceName, key));
                    break;
            }
        }

        var document = new TunnelStatusDocument(interfaceName, publicKey, listenPort, now, 0, new Dictionary<string, long>(), [.. peers.Select(p => p.Build())])
        {
            Salvo = false,
        };
        return salvo is null ? document : AddSalvo(document, salvo);
    }

    /// <summary>Salvo's counters onto <paramref name="document"/>: device keys first, then per peer by its public key.</summary>
    private static TunnelStatusDocument AddSalvo(TunnelStatusDocument document, IReadOnlyList<(string Key, string Value)> salvo)
    {
        var name = document.Interface;
        var dropped = new Dictionary<string, long>();
        long cookiesSent = 0, cookiesReceived = 0, receiveBatches = 0, received = 0, sendBatches = 0, sent = 0;
        var extras = new Dictionary<string, Dictionary<string, string>>(StringComparer.Ordinal);
        Dictionary<string, string>? peer = null;
        foreach (var (key, value) in salvo)
        {
            switch (key)
            {
                case "public_key":
                    peer = extras[WireGuardKey.FromBytes(Hex(name, key, value)).ToString()] = new Dictionary<string, string>(StringComparer.Ordinal);
                    break;
                case var _ when peer is not null:
                    peer[key] = value.Length <= 256 ? value : throw Bad(name, key);
                    break;
                case "cookie_replies_sent":
                    cookiesSent = Number(name, key, value, long.MaxValue);
                    break;
                case "cookie_replies_received":
                    cookiesReceived = Number(name, key, value, long.MaxValue);
                    break;
                case "receive_batches":
                    receiveBatches = Number(name, key, value, long.MaxValue);
                    break;
                case "receive_batch_datagrams":
                    received = Number(name, key, value, long.MaxValue);
                    break;
                case "send_batches":
                    sendBatches = Number(name, key, value, long.MaxValue);
                    break;
                case "send_batch_packets":
                    sent = Number(name, key, value, long.MaxValue);
                    break;
                case "dropped":
                    var colon = value.LastIndexOf(':');
                    var reason = colon > 0 ? value[..colon] : throw Bad(name, key);
                    dropped[Enum.TryParse<TunnelDropReason>(reason, out var known) ? known.ToString() : throw Bad(name, key)] = Number(name, key, value[(colon + 1)..], long.MaxValue);
                    break;
            }
        }

        return document with
        {
            Salvo = true,
            CookieRepliesSent = cookiesSent,
            CookieRepliesReceived = cookiesReceived,
            MeanReceiveBatch = receiveBatches > 0 ? (double)received / receiveBatches : null,
            MeanSendBatch = sendBatches > 0 ? (double)sent / sendBatches : null,
            Dropped = dropped,
            Peers = [.. document.Peers.Select(p => extras.TryGetValue(p.PublicKey, out var extra) ? WithExtras(name, p, extra) : p)],
        };
    }

    private static TunnelPeerDocument WithExtras(string name, TunnelPeerDocument peer, Dictionary<string, string> extra)
    {
        long? Optional(string key) => extra.TryGetValue(key, out var value) ? Number(name, key, value, long.MaxValue) : null;
        var since = Optional("unanswered_since_sec");
        var changed = Optional("path_changed_sec");
        return peer with
        {
            Path = extra.TryGetValue("path", out var path) && path is "udp" or "tcp" ? path : peer.Path,
            PathChanged = changed is { } c ? DateTimeOffset.FromUnixTimeSeconds(Math.Min(c, 253_402_300_799)) : null,
            PathReason = changed is null ? null : extra.GetValueOrDefault("path_reason"),
            InitiationsSent = Optional("initiations_sent"),
            InitiationsUnanswered = Optional("initiations_unanswered"),
            UnansweredSince = since is { } s ? DateTimeOffset.FromUnixTimeSeconds(Math.Min(s, 253_402_300_799)) : null,
            Unanswered = Optional("unanswered") == 1,
        };
    }

    private static byte[] Hex(string interfaceName, string key, string value)
    {
        if (value.Length != 64)
        {
            throw Bad(interfaceName, key);
        }

        try
        {
            return Convert.FromHexString(value);
        }
        catch (FormatException)
        {
            throw Bad(interfaceName, key);
        }
    }

    private static long Number(string interfaceName, string key, string value, long max) =>
        long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var number) && number <= max ? number : throw Bad(interfaceName, key);

    private static DaemonException Bad(string interfaceName, string key) =>
        new($"show: {interfaceName}: the wg control socket answered a {key} line that does not parse", DaemonException.FailureExitCode);

    /// <summary>A peer's get=1 lines as they come.</summary>
    private sealed class PeerBuilder(string publicKey)
    {
        public string? Endpoint { get; set; }

        public long HandshakeSeconds { get; set; }

        public long HandshakeNanoseconds { get; set; }

        public long Sent { get; set; }

        public long Received { get; set; }

        public int Keepalive { get; set; }

        public List<string> AllowedIps { get; } = [];

        public TunnelPeerDocument Build() => new(
            publicKey,
            Endpoint,
            "udp",
            null,
            null,
            AllowedIps,
            HandshakeSeconds == 0 && HandshakeNanoseconds == 0
                ? null
                : DateTimeOffset.FromUnixTimeSeconds(Math.Min(HandshakeSeconds, 253_402_300_799)).AddTicks(HandshakeNanoseconds / 100),
            Received,
            Sent,
            Keepalive == 0 ? null : Keepalive);
    }
}
