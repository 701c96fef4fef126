using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Salvo.Tunnel;
using Salvo.WireGuard.Tests.Metrics;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// Debian's <c>prometheus</c> server scraping the endpoint every second, on loopback, with its own storage in a
/// temporary folder; the values are read back through its HTTP API, as a dashboard reads them.
/// </summary>
public sealed class PrometheusScrapeLabTests : IDisposable
{
    /// <summary>Its start (TSDB, rules, first scrape) took 3-8 s on the 2-core lab machine at load 10.</summary>
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(60);

    private static readonly HttpClient s_http = new() { Timeout = TimeSpan.FromSeconds(5) };
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-prometheus-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [RequiresFact(Requirement.Root, Tools = ["prometheus"])]
    public async Task Prometheus_ScrapesTheEndpoint_AndReadsADropAndAPeerBack()
    {
        var peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        await using var lab = await MetricsLab.StartAsync([peer], perPeer: false);
        using (var sender = new UdpClient(AddressFamily.InterNetwork))
        {
            // Type 1 with 4 bytes instead of an initiation's 148: one Malformed drop.
            await sender.SendAsync(new byte[] { 1, 0, 0, 0 }, new IPEndPoint(IPAddress.Loopback, lab.Tunnel.ListenPort));
        }

        var web = FreeLoopbackPort();
        var config = Path.Combine(_folder, "prometheus.yml");
        await File.WriteAllTextAsync(config,
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n" +
            $"scrape_configs:\n  - job_name: salvo\n    static_configs:\n      - targets: ['{lab.Endpoint.Endpoint}']\n");
        var start = new ProcessStartInfo("prometheus") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in new[] { $"--config.file={config}", $"--storage.tsdb.path={Path.Combine(_folder, "data")}", $"--web.listen-address=127.0.0.1:{web}" })
        {
            start.ArgumentList.Add(argument);
        }

        using var prometheus = Process.Start(start)!;
        var log = prometheus.StandardError.ReadToEndAsync();
        try
        {
            var dropped = await QueryAsync(web, "wireguard_salvo_dropped_total{interface=\"mtest0\",reason=\"malformed\"}", "1");
            var path = await QueryAsync(web, $"wireguard_salvo_peer_path_tcp{{public_key=\"{peer}\"}}", "0");
            var up = await QueryAsync(web, "up{job=\"salvo\"}", "1");

            Assert.True(dropped == "1", $"the drop never reached Prometheus: {dropped}");
            Assert.True(path == "0", $"the peer's path never reached Prometheus: {path}");
            Assert.True(up == "1", $"Prometheus did not mark the target up: {up}");
        }
        finally
        {
            prometheus.Kill();
            await prometheus.WaitForExitAsync();
        }

        Assert.DoesNotContain("level=error", await log, StringComparison.Ordinal);
    }

    /// <summary>The query's one value once it equals <paramref name="expected"/>, or the last answer after <see cref="s_patience"/>.</summary>
    private static async Task<string> QueryAsync(int port, string query, string expected)
    {
        var clock = Stopwatch.StartNew();
        var last = "no answer";
        while (clock.Elapsed < s_patience)
        {
            try
            {
                var answer = await s_http.GetStringAsync(new Uri($"http://127.0.0.1:{port}/api/v1/query?query={Uri.EscapeDataString(query)}"));
                using var json = JsonDocument.Parse(answer);
                var result = json.RootElement.GetProperty("data").GetProperty("result");
                last = result.GetArrayLength() == 1 ? result[0].GetProperty("value")[1].GetString() ?? "null" : answer;
                if (last == expected)
                {
                    return last;
                }
            }
            catch (HttpRequestException e)
            {
                // Prometheus is still starting.
                last = e.Message;
            }

            await Task.Delay(250);
        }

        return last;
    }

    /// <summary>A loopback port free now: Prometheus takes a port number, not a socket, so one is picked and let go.</summary>
    private static int FreeLoopbackPort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }
}
