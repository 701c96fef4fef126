using System.Net;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard.Tests.Metrics;

/// <summary>A tunnel on an idle TUN with its UDP port on loopback, and its scrape endpoint on loopback port 0.</summary>
internal sealed class MetricsLab : IAsyncDisposable
{
    private static readonly HttpClient s_http = new() { Timeout = TimeSpan.FromSeconds(10) };

    private MetricsLab(TunnelDevice tunnel, ScrapeEndpoint endpoint)
    {
        Tunnel = tunnel;
        Endpoint = endpoint;
    }

    public TunnelDevice Tunnel { get; }

    public ScrapeEndpoint Endpoint { get; }

    public static Task<MetricsLab> StartAsync(IReadOnlyList<WireGuardKey> peers, bool perPeer)
    {
        var configuration = new TunnelConfiguration
        {
            PrivateKey = WireGuardKey.GeneratePrivateKey(),
            Peers = [.. peers.Select(key => new PeerConfiguration { PublicKey = key })],
        };
        var tunnel = TunnelDevice.Start(configuration, new IdleTun("mtest0"));
        var series = new TunnelSeries("mtest0", tunnel.Engine.Counters, tunnel.Engine.GetPeers, perPeer, peers.Count);
        return Task.FromResult(new MetricsLab(tunnel, ScrapeEndpoint.Start(new IPEndPoint(IPAddress.Loopback, 0), series.Registry)));
    }

    public Task<string> ScrapeAsync() => s_http.GetStringAsync(new Uri($"http://{Endpoint.Endpoint}/metrics"));

    public async ValueTask DisposeAsync()
    {
        await Endpoint.DisposeAsync();
        Tunnel.Dispose();
    }
}
