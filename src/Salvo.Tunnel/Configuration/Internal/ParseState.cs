using System.Globalization;
using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Configuration;

/// <summary>What has been read so far: the interface settings and the peer being filled in.</summary>
internal sealed class ParseState
{
    // The lists wg(8) (AllowedIPs) and wg-quick(8) (Address) say "may be specified multiple times"; every other key once per section.
    private static readonly HashSet<string> s_repeatable = new(StringComparer.OrdinalIgnoreCase) { "Address", "AllowedIPs" };

    // A [Peer]'s PublicKey may come after its other keys; until it does the peer holds this one (never applied: a
    // peer without its own key is refused).
    private static readonly WireGuardKey s_noKeyYet = WireGuardKey.FromBytes(new byte[32]);

    private readonly Dictionary<string, int> _keysInSection = new(StringComparer.OrdinalIgnoreCase);

    // As 'wg setconf' sends a file: the private key and peers replace what the device had, each peer's AllowedIPs too.
    private readonly TunnelChange _change = new() { SetsPrivateKey = true, ReplacePeers = true };

    // A set, not a scan of the change's peers: with 10,000 peers the scan made parsing quadratic (35 s for one file).
    private readonly HashSet<WireGuardKey> _peerKeys = [];
    private Section _section;
    private int _interfaceLine;
    private readonly List<InterfaceAddress> _addresses = [];
    private int? _mtu;
    private bool _addRoutes = true;
    private uint? _routeTable;
    private int? _probeAfterMilliseconds;
    private int? _probeTimeoutMilliseconds;
    private bool _sawInterface;
    private PeerChange? _peer;
    private int _peerLine;
    private bool _peerKeyRead;

    private enum Section
    {
        None,
        Interface,
        Peer,
    }

    public void BeginSection(string name, int line)
    {
        FinishPeer();
        _keysInSection.Clear();
        if (name.Equals("Interface", StringComparison.OrdinalIgnoreCase))
        {
            if (_sawInterface)
            {
                throw new TunnelConfigurationException(line, null, "a second [Interface] section; a file describes one interface");
            }

            _sawInterface = true;
            _interfaceLine = line;
            _section = Section.Interface;
        }
        else if (name.Equals("Peer", StringComparison.OrdinalIgnoreCase))
        {
            _section = Section.Peer;
            _peerLine = line;
            _peerKeyRead = false;
            _peer = new PeerChange(s_noKeyYet) { ReplaceAllowedIps = true, TcpFallback = TcpFallbackMode.Auto };
        }
        else
        {
            throw new TunnelConfigurationException(line, null, $"unknown section {ShownValue.Of($"[{name}]")}; expected [Interface] or [Peer]");
        }
    }

    public void Set(string key, string value, int line)
    {
        if (_section != Section.None && !s_repeatable.Contains(key) && !_keysInSection.TryAdd(key, line))
        {
            throw new TunnelConfigurationException(line, key, $"given again (first on line {_keysInSection[key]}); it may appear once per [{_section}]");
        }

        switch (_section)
        {
            case Section.Interface:
                SetInterface(key, value, line);
                break;
            case Section.Peer:
                SetPeer(_peer!, key, value, line);
                break;
            default:
                throw new TunnelConfigurationException(line, key, "appears before any [Interface] or [Peer] section");
        }
    }

    /// <summary>The file as one change: what <c>wg setconf</c> would send for it, and the settings only a file has.</summary>
    public TunnelChange Build()
    {
        FinishPeer();
        if (!_sawInterface)
        {
            throw new TunnelConfigurationException(0, null, "there is no [Interface] section; it is required, with a PrivateKey");
        }

        if (_change.PrivateKey is null)
        {
            throw new TunnelConfigurationException(_interfaceLine, "PrivateKey", "is required in [Interface]");
        }

        _change.Interface = new InterfaceSettings
        {
            Addresses = _addresses,
            Mtu = _mtu ?? TunnelConfiguration.DefaultMtu,
            AddRoutes = _addRoutes,
            RouteTable = _routeTable,
            TcpFallback = FallbackTimers(),
        };
        return _change;
    }

    private void SetInterface(string key, string value, int line)
    {
        switch (key.ToUpperInvariant())
        {
            case "PRIVATEKEY":
                _change.PrivateKey = WireGuardConfigParser.ParseKey(value, key, line);
                break;
            case "LISTENPORT":
                _change.ListenPort = WireGuardConfigParser.ParseInteger(value, key, line, 0, IPEndPoint.MaxPort);
                break;
            case "FWMARK":
                _change.FwMark = WireGuardConfigParser.ParseFwMark(value, key, line);
                break;
            case "ADDRESS":
                _addresses.AddRange(WireGuardConfigParser.ParseList(value, key, line, "an IP address with an optional /length (198.19.0.1/24, fd00::1/64)", InterfaceAddress.Parse, emptyItemsSkipped: true));
                break;
            case "MTU":
                // 1280 is the IPv6 minimum link MTU (RFC 8200); 65,535 the largest IP packet.
                _mtu = WireGuardConfigParser.ParseInteger(value, key, line, 1280, 65_535);
                break;
            case "TABLE":
                (_addRoutes, _routeTable) = ParseTable(value, key, line);
                break;
            case "TCPFALLBACKPROBEAFTERMS":
                _probeAfterMilliseconds = ParseFallbackMilliseconds(value, key, line);
                break;
            case "TCPFALLBACKPROBETIMEOUTMS":
                _probeTimeoutMilliseconds = ParseFallbackMilliseconds(value, key, line);
                break;
            default:
                throw new TunnelConfigurationException(
                    line, key, "unknown key in [Interface]; expected PrivateKey, ListenPort, FwMark, Address, MTU, Table, TcpFallbackProbeAfterMs or TcpFallbackProbeTimeoutMs");
        }
    }

    /// <summary>
    /// wg-quick(8)'s Table: off (no routes), auto (the main table) or a table's number; 0 is RT_TABLE_UNSPEC, no table
    /// (linux/rtnetlink.h). Table names from /etc/iproute2/rt_tables are not read.
    /// </summary>
    private static (bool AddRoutes, uint? Table) ParseTable(string value, string key, int line)
    {
        if (value.Equals("off", StringComparison.OrdinalIgnoreCase))
        {
            return (false, null);
        }

        if (value.Equals("auto", StringComparison.OrdinalIgnoreCase))
        {
            return (true, null);
        }

        return uint.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var table) && table > 0
            ? (true, table)
            : throw new TunnelConfigurationException(line, key, $"must be off, auto or a routing table's number from 1 to {uint.MaxValue}, not {ShownValue.Of(value)}");
    }

    // Under 100 ms a busy host's scheduling alone would pass for a dead path; over a minute is no fallback.
    private static int ParseFallbackMilliseconds(string value, string key, int line) => WireGuardConfigParser.ParseInteger(value, key, line, 100, 60_000);

    private TcpFallbackOptions FallbackTimers()
    {
        var defaults = new TcpFallbackOptions();
        return new TcpFallbackOptions
        {
            ProbeAfter = _probeAfterMilliseconds is { } after ? TimeSpan.FromMilliseconds(after) : defaults.ProbeAfter,
            ProbeTimeout = _probeTimeoutMilliseconds is { } timeout ? TimeSpan.FromMilliseconds(timeout) : defaults.ProbeTimeout,
        };
    }

    private void SetPeer(PeerChange peer, string key, string value, int line)
    {
        switch (key.ToUpperInvariant())
        {
            case "PUBLICKEY":
                peer.PublicKey = WireGuardConfigParser.ParseKey(value, key, line);
                _peerKeyRead = true;
                break;
            case "PRESHAREDKEY":
                peer.SetsPresharedKey = true;
                peer.PresharedKey = WireGuardConfigParser.ParseKey(value, key, line);
                break;
            case "ALLOWEDIPS":
                foreach (var prefix in WireGuardConfigParser.ParseList(value, key, line, "an IP address or CIDR range (198.19.0.0/24, fd00::/64)", IPPrefix.Parse))
                {
                    peer.AddAllowedIp(prefix);
                }

                break;
            case "ENDPOINT":
                peer.Endpoint = WireGuardConfigParser.ParseEndpoint(value, key, line);
                break;
            case "PERSISTENTKEEPALIVE":
                var seconds = value.Equals("off", StringComparison.OrdinalIgnoreCase)
                    ? 0
                    : WireGuardConfigParser.ParseInteger(value, key, line, 0, 65_535);
                peer.PersistentKeepalive = TimeSpan.FromSeconds(seconds);
                break;
            case "TCPFALLBACK":
                peer.TcpFallback = ParseTcpFallback(value, key, line);
                break;
            default:
                throw new TunnelConfigurationException(line, key, "unknown key in [Peer]; expected PublicKey, PresharedKey, AllowedIPs, Endpoint, PersistentKeepalive or TcpFallback");
        }
    }

    private static TcpFallbackMode ParseTcpFallback(string value, string key, int line) => value.ToUpperInvariant() switch
    {
        "AUTO" => TcpFallbackMode.Auto,
        "OFF" => TcpFallbackMode.Off,
        "ONLY" => TcpFallbackMode.Only,
        _ => throw new TunnelConfigurationException(line, key, $"must be auto, off or only, not {ShownValue.Of(value)}"),
    };

    private void FinishPeer()
    {
        if (_peer is null)
        {
            return;
        }

        var peer = _peer;
        _peer = null;
        if (!_peerKeyRead)
        {
            throw new TunnelConfigurationException(_peerLine, "PublicKey", "is required in every [Peer]");
        }

        if (!_peerKeys.Add(peer.PublicKey))
        {
            throw new TunnelConfigurationException(_peerLine, "PublicKey", "this peer appears twice");
        }

        _change.Peers.Add(peer);
    }
}
