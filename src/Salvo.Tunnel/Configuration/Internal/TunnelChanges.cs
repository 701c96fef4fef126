using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// Between the public <see cref="TunnelConfiguration"/> and the <see cref="TunnelChange"/> that devices and engines
/// apply. A file parses into a change (<see cref="ParseState"/>), which the configuration keeps and shows; a
/// configuration built in code becomes the change <c>wg setconf</c> would send for the same file.
/// </summary>
internal static class TunnelChanges
{
    /// <summary>The configuration that shows <paramref name="change"/>, a file's, and applies it as it is.</summary>
    public static TunnelConfiguration ToConfiguration(TunnelChange change)
    {
        var settings = change.Interface ?? new InterfaceSettings();
        return new TunnelConfiguration
        {
            PrivateKey = change.PrivateKey,
            ListenPort = change.ListenPort,
            FwMark = change.FwMark ?? 0,
            Addresses = settings.Addresses,
            Mtu = settings.Mtu,
            AddRoutes = settings.AddRoutes,
            RouteTable = settings.RouteTable,
            TcpFallback = settings.TcpFallback,
            Peers = [.. change.Peers.Select(peer => new PeerConfiguration
            {
                PublicKey = peer.PublicKey,
                PresharedKey = peer.PresharedKey,
                AllowedIps = peer.AllowedIps,
                Endpoint = peer.Endpoint,
                PersistentKeepalive = peer.PersistentKeepalive > TimeSpan.Zero ? peer.PersistentKeepalive : null,
                TcpFallback = peer.TcpFallback ?? TcpFallbackMode.Auto,
            })],
            Parsed = change,
        };
    }

    /// <summary>The change that starts a device from <paramref name="configuration"/>.</summary>
    /// <exception cref="ArgumentException">A peer is configured twice.</exception>
    public static TunnelChange FromConfiguration(TunnelConfiguration configuration)
    {
        var change = new TunnelChange
        {
            SetsPrivateKey = true,
            PrivateKey = configuration.PrivateKey,
            ListenPort = configuration.ListenPort ?? 0,
            FwMark = configuration.FwMark,
            ReplacePeers = true,
            Interface = new InterfaceSettings
            {
                Addresses = configuration.Addresses,
                Mtu = configuration.Mtu,
                AddRoutes = configuration.AddRoutes,
                RouteTable = configuration.RouteTable,
                TcpFallback = configuration.TcpFallback,
            },
        };
        var seen = new HashSet<WireGuardKey>();
        foreach (var peer in configuration.Peers)
        {
            if (!seen.Add(peer.PublicKey))
            {
                throw new ArgumentException($"Peer {peer.PublicKey} is configured twice.", nameof(configuration));
            }

            var peerChange = new PeerChange(peer.PublicKey)
            {
                SetsPresharedKey = peer.PresharedKey is not null,
                PresharedKey = peer.PresharedKey,
                Endpoint = peer.Endpoint,
                PersistentKeepalive = peer.PersistentKeepalive ?? TimeSpan.Zero,
                ReplaceAllowedIps = true,
                TcpFallback = peer.TcpFallback,
            };
            foreach (var prefix in peer.AllowedIps)
            {
                peerChange.AddAllowedIp(prefix);
            }

            change.Peers.Add(peerChange);
        }

        return change;
    }
}
