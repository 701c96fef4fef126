using System.Net.Sockets;
using Salvo.Tunnel;

namespace Salvo.WireGuard.Metrics;

/// <summary>Starts <c>up</c>'s scrape endpoint when <c>--metrics-listen</c> asks for one.</summary>
internal static class MetricsEndpoint
{
    /// <summary>
    /// The endpoint serving <paramref name="tunnel"/>'s series, or null when <paramref name="options"/> is null. One
    /// that cannot listen (port taken, address not ours) ends the tunnel with a message naming <paramref name="asked"/>: metrics
    /// asked for and silently missing would show as a dead tunnel on every panel.
    /// </summary>
    public static ScrapeEndpoint? Start(MetricsOptions? options, TunnelDevice tunnel, int configuredPeers, DaemonConsole console, string asked = "up: " + MetricsOptions.ListenOption)
    {
        if (options is null)
        {
            return null;
        }

        var series = new TunnelSeries(tunnel.InterfaceName, tunnel.Engine.Counters, tunnel.Engine.GetPeers, options.PerPeer, configuredPeers);
        ScrapeEndpoint endpoint;
        try
        {
            endpoint = ScrapeEndpoint.Start(options.Listen, series.Registry);
        }
        catch (SocketException e)
        {
            throw new DaemonException($"{asked} {options.Listen}: cannot listen ({e.SocketErrorCode}: {e.Message})");
        }

        var perPeer = options.PerPeer || configuredPeers <= MetricsOptions.PerPeerLimit
            ? "per-peer and tunnel-wide series"
            : $"tunnel-wide series only, {configuredPeers:N0} peers being over {MetricsOptions.PerPeerLimit:N0} (--metrics-per-peer shows each peer's)";
        console.Note($"{DaemonExecutable.Name}: {tunnel.InterfaceName}: Prometheus metrics on http://{endpoint.Endpoint}/metrics: {perPeer}");
        return endpoint;
    }
}
