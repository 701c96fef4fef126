using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Salvo.Streams;
using Salvo.Tests.Lab;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>
/// MessageTransport's UdpFirst across two network namespaces: the server in host B, the client (a child
/// <c>salvo transport</c> process started inside host A, so that every socket it opens, including the TCP
/// fallback's, lives there) in host A, and an nftables rule in B that drops UDP to the server's port.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class TransportFallbackLabTests
{
    [LabFact(needsNftables: true)]
    public async Task UdpFirst_NftablesDropsUdpToTheServer_FallsBackToTcp()
    {
        using var lab = new NetworkLab();
        await using var server = StartServer(lab);
        var port = server.LocalEndPoint!.Port;
        NetworkLab.Exec(lab.HostB, "nft", "add table inet salvo");
        NetworkLab.Exec(lab.HostB, "nft", "add chain inet salvo input { type filter hook input priority 0 ; policy accept ; }");
        NetworkLab.Exec(lab.HostB, "nft", $"add rule inet salvo input udp dport {port} counter drop");

        // Nothing can answer, so the whole timeout passes: keep it short.
        var report = ConnectFromA(lab, port, handshakeMilliseconds: 200);

        Assert.Equal("Tcp", report.GetProperty("transport").GetString());
        Assert.Contains("no UDP handshake answer", report.GetProperty("reason").GetString(), StringComparison.Ordinal);
        Assert.Equal(5, report.GetProperty("echoed").GetInt32());
        Assert.Equal(0, server.HandshakesAnswered);
        var counted = NetworkLab.Exec(lab.HostB, "nft", "list chain inet salvo input");
        Assert.Matches(@"counter packets [1-9]\d* ", counted);
    }

    [LabFact(needsNftables: true)]
    public async Task UdpFirst_WithoutTheRule_StaysOnUdp()
    {
        using var lab = new NetworkLab();
        await using var server = StartServer(lab);

        // An answer ends the wait at once, so the timeout only has to outlast a busy machine: a freshly started
        // client once took over 200 ms to see its answer and fell back.
        var report = ConnectFromA(lab, server.LocalEndPoint!.Port, handshakeMilliseconds: 5_000);

        Assert.Equal("Udp", report.GetProperty("transport").GetString());
        Assert.Equal(5, report.GetProperty("echoed").GetInt32());
        Assert.True(server.HandshakesAnswered >= 1);
    }

    private static MessageTransportServer StartServer(NetworkLab lab) => NetworkLab.InHost(lab.HostB, () =>
    {
        var server = new MessageTransportServer(new MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 0) },
            static async (peer, message) => await peer.SendAsync(System.Buffers.BuffersExtensions.ToArray(message)).ConfigureAwait(false));
        server.Start();
        return server;
    });

    private static JsonElement ConnectFromA(NetworkLab lab, int port, int handshakeMilliseconds)
    {
        var start = new ProcessStartInfo("ip") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[]
        {
            "netns", "exec", lab.HostA, Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet",
            Path.Combine(AppContext.BaseDirectory, "Salvo.Perf.dll"), "transport", $"{NetworkLab.AddressB}:{port}",
            "--json", "--handshake-ms", handshakeMilliseconds.ToString(System.Globalization.CultureInfo.InvariantCulture), "-n", "5",
        })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("could not start salvo in host A");
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        Assert.True(process.WaitForExit(60_000), "salvo transport did not finish");
        Assert.True(process.ExitCode == 0, $"exit {process.ExitCode}: {output} {error.Result}");
        return JsonDocument.Parse(output).RootElement.Clone();
    }
}
