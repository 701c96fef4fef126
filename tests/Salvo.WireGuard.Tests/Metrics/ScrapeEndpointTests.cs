using System.Net;
using System.Net.Sockets;
using System.Text;
using Salvo.Tunnel;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard.Tests.Metrics;

/// <summary>The scrape endpoint's exposition of a live tunnel on loopback: names, labels, and a drop that shows up.</summary>
public sealed class ScrapeEndpointTests
{
    [Fact]
    public async Task Scrape_ShowsTunnelWideAndPerPeerSeries_WithTheirLabels()
    {
        var peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        await using var lab = await MetricsLab.StartAsync([peer], perPeer: false);

        var text = await lab.ScrapeAsync();

        Assert.Contains("# TYPE wireguard_salvo_dropped_total counter", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_dropped_total{interface=\"mtest0\",reason=\"decryption_failed\"} 0", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_handshakes_total{interface=\"mtest0\",role=\"initiator\"} 0", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_received_bytes_total{interface=\"mtest0\"} 0", text, StringComparison.Ordinal);
        Assert.Contains($"wireguard_salvo_peer_received_bytes_total{{interface=\"mtest0\",public_key=\"{peer}\"}} 0", text, StringComparison.Ordinal);
        Assert.Contains($"wireguard_salvo_peer_path_tcp{{interface=\"mtest0\",public_key=\"{peer}\"}} 0", text, StringComparison.Ordinal);
        Assert.Contains($"wireguard_salvo_peer_unanswered{{interface=\"mtest0\",public_key=\"{peer}\"}} 0", text, StringComparison.Ordinal);
        Assert.Contains($"wireguard_salvo_peer_handshake_initiations_total{{interface=\"mtest0\",public_key=\"{peer}\"}}", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_cookie_replies_received_total{interface=\"mtest0\"} 0", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE wireguard_salvo_receive_batch_datagrams_total counter", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE wireguard_salvo_send_batch_packets_total counter", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_peers{interface=\"mtest0\"} 1", text, StringComparison.Ordinal);
        Assert.Contains("wireguard_salvo_per_peer_series{interface=\"mtest0\"} 1", text, StringComparison.Ordinal);
        // No handshake yet: no age series, rather than an age of 0 that would read as "just now".
        Assert.DoesNotContain("wireguard_salvo_peer_handshake_age_seconds{", text, StringComparison.Ordinal);
        foreach (var reason in Enum.GetValues<TunnelDropReason>())
        {
            Assert.Contains($"reason=\"{TunnelCounters.NameOf(reason)}\"", text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Scrape_AfterAMalformedDatagram_CountsItsDrop()
    {
        await using var lab = await MetricsLab.StartAsync([], perPeer: false);
        using var sender = new UdpClient(AddressFamily.InterNetwork);

        // Type 1 with 4 bytes instead of an initiation's 148: Malformed.
        await sender.SendAsync(new byte[] { 1, 0, 0, 0 }, new IPEndPoint(IPAddress.Loopback, lab.Tunnel.ListenPort));
        var expected = "wireguard_salvo_dropped_total{interface=\"mtest0\",reason=\"malformed\"} 1";
        var text = string.Empty;
        for (var attempt = 0; attempt < 100 && !text.Contains(expected, StringComparison.Ordinal); attempt++)
        {
            await Task.Delay(50);
            text = await lab.ScrapeAsync();
        }

        Assert.Contains(expected, text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Scrape_OverThePeerLimit_ShowsTunnelWideSeriesOnly_UnlessPerPeerIsAsked()
    {
        var peers = Enumerable.Range(0, MetricsOptions.PerPeerLimit + 1).Select(_ => WireGuardKey.GeneratePrivateKey().DerivePublicKey()).ToArray();

        await using (var bounded = await MetricsLab.StartAsync(peers, perPeer: false))
        {
            var text = await bounded.ScrapeAsync();
            Assert.Contains("wireguard_salvo_per_peer_series{interface=\"mtest0\"} 0", text, StringComparison.Ordinal);
            Assert.Contains("wireguard_salvo_dropped_total{", text, StringComparison.Ordinal);
            Assert.DoesNotContain("wireguard_salvo_peer_received_bytes_total{", text, StringComparison.Ordinal);
        }

        await using var forced = await MetricsLab.StartAsync(peers, perPeer: true);
        var all = await forced.ScrapeAsync();
        Assert.Equal(peers.Length, all.Split('\n').Count(line => line.StartsWith("wireguard_salvo_peer_received_bytes_total{", StringComparison.Ordinal)));
    }

    [Theory]
    [InlineData("POST /metrics HTTP/1.1\r\n\r\n", "405", "method")]
    [InlineData("GET /secret HTTP/1.1\r\n\r\n", "404", "not_found")]
    [InlineData("hello\r\n\r\n", "400", "malformed")]
    public async Task Request_NotAScrape_IsRefusedAndCountedByReason(string request, string status, string reason)
    {
        await using var lab = await MetricsLab.StartAsync([], perPeer: false);
        using var client = new TcpClient();
        await client.ConnectAsync(lab.Endpoint.Endpoint);
        var stream = client.GetStream();
        await stream.WriteAsync(Encoding.ASCII.GetBytes(request));
        using var reader = new StreamReader(stream, Encoding.ASCII);

        var answer = await reader.ReadToEndAsync();

        Assert.StartsWith($"HTTP/1.1 {status} ", answer, StringComparison.Ordinal);
        Assert.Contains($"wireguard_salvo_scrape_requests_refused_total{{reason=\"{reason}\"}} 1", await lab.ScrapeAsync(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Request_HeadPastTheLimit_IsRefusedWithoutEndingTheEndpoint()
    {
        await using var lab = await MetricsLab.StartAsync([], perPeer: false);
        using (var client = new TcpClient())
        {
            await client.ConnectAsync(lab.Endpoint.Endpoint);
            var stream = client.GetStream();
            await stream.WriteAsync(Encoding.ASCII.GetBytes("GET /metrics HTTP/1.1\r\nX: " + new string('a', ScrapeEndpoint.MaxRequestBytes)));
            using var reader = new StreamReader(stream, Encoding.ASCII);
            Assert.StartsWith("HTTP/1.1 431 ", await reader.ReadLineAsync(), StringComparison.Ordinal);
        }

        Assert.Contains("wireguard_salvo_scrape_requests_refused_total{reason=\"too_large\"} 1", await lab.ScrapeAsync(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_OnAPortTaken_IsRefusedNamingTheOption()
    {
        await using var lab = await MetricsLab.StartAsync([], perPeer: false);
        var taken = lab.Endpoint.Endpoint;
        var console = new DaemonConsole(new StringWriter(), new StringWriter());

        var error = Assert.Throws<DaemonException>(() => MetricsEndpoint.Start(new MetricsOptions(taken, PerPeer: false), lab.Tunnel, 0, console)).Message;

        Assert.StartsWith($"up: --metrics-listen {taken}: cannot listen (AddressAlreadyInUse", error, StringComparison.Ordinal);
    }
}
