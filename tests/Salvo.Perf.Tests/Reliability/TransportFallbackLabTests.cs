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
public sealed class TransportFallbackLabTests(Xunit.Abstractions.ITestOutputHelper output)
{
    [RequiresFact(Requirement.Netns, Tools = ["nft"])]
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

    [RequiresFact(Requirement.Netns, Tools = ["nft"])]
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

    [RequiresFact(Requirement.Netns, Tools = ["nft"])]
    public async Task UdpFirst_NumberedMessagesAcrossANftablesDropAndItsRemoval_EachArrivesExactlyOnce()
    {
        using var lab = new NetworkLab();
        var arrivals = new System.Collections.Concurrent.ConcurrentDictionary<int, int>();
        var overTcp = 0;
        await using var server = NetworkLab.InHost(lab.HostB, () =>
        {
            var server = new MessageTransportServer(new MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 0) },
                async (peer, message) =>
                {
                    arrivals.AddOrUpdate(System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(System.Buffers.BuffersExtensions.ToArray(message)), 1, (_, n) => n + 1);
                    if (peer.Transport == TransportKind.Tcp)
                    {
                        Interlocked.Increment(ref overTcp);
                    }

                    await peer.SendAsync(System.Buffers.BuffersExtensions.ToArray(message)).ConfigureAwait(false);
                });
            server.Start();
            return server;
        });
        var port = server.LocalEndPoint!.Port;
        NetworkLab.Exec(lab.HostB, "nft", "add table inet salvo");
        NetworkLab.Exec(lab.HostB, "nft", "add chain inet salvo input { type filter hook input priority 0 ; policy accept ; }");

        using var client = StartClient(lab, port, "--watch", "20", "--interval-ms", "20");
        JsonElement report;
        TimeSpan blockedAt, onTcpAt;
        try
        {
            var clock = Stopwatch.StartNew();
            await WaitUntilAsync(() => arrivals.Count >= 40, clock, "40 messages over UDP");
            NetworkLab.Exec(lab.HostB, "nft", $"add rule inet salvo input udp dport {port} counter drop");
            blockedAt = clock.Elapsed;
            await WaitUntilAsync(() => Volatile.Read(ref overTcp) > 0, clock, "a message over TCP");
            onTcpAt = clock.Elapsed;
            NetworkLab.Exec(lab.HostB, "nft", "flush chain inet salvo input");
            report = Finish(client);
        }
        finally
        {
            if (!client.HasExited)
            {
                client.Kill(entireProcessTree: true);
            }
        }

        output.WriteLine($"drop added at {blockedAt.TotalSeconds:F2} s, first message over TCP at {onTcpAt.TotalSeconds:F2} s (test clock); the client saw:");
        foreach (var change in report.GetProperty("switches").EnumerateArray())
        {
            output.WriteLine($"  {change.GetProperty("atSeconds").GetDouble():F2} s (client clock): {change.GetProperty("transport").GetString()}: {change.GetProperty("reason").GetString()}");
        }

        output.WriteLine($"sent {report.GetProperty("sent").GetInt32()}, echoed {report.GetProperty("echoed").GetInt32()}, resent {report.GetProperty("resent").GetInt32()}, echoed twice {report.GetProperty("duplicateEchoes").GetInt32()}");
        var switches = report.GetProperty("switches").EnumerateArray().Select(s => s.GetProperty("transport").GetString()).ToList();
        Assert.Equal(["Tcp", "Udp"], switches);
        Assert.Equal("Udp", report.GetProperty("transport").GetString());
        var sent = report.GetProperty("sent").GetInt32();
        // The watch ends at its time whatever is in flight: the last message may still be waiting for its echo.
        Assert.Equal(sent, report.GetProperty("echoed").GetInt32() + report.GetProperty("inFlightAtEnd").GetInt32());
        Assert.Equal(0, report.GetProperty("duplicateEchoes").GetInt32());
        Assert.Equal(Enumerable.Range(0, sent), arrivals.Keys.Order());
        // Every message arrived; a copy more than once only where the watch resent it (an echo lost at the drop, or one
        // later than the watch's 1 s on a loaded machine): the transport itself delivers each send once.
        var extraArrivals = arrivals.Values.Sum() - arrivals.Count;
        Assert.True(extraArrivals <= report.GetProperty("resent").GetInt32(),
            $"{extraArrivals} extra arrivals, {report.GetProperty("resent").GetInt32()} resends: {string.Join(", ", arrivals.Where(pair => pair.Value > 1).Select(pair => $"message {pair.Key} x{pair.Value}"))}");
        Assert.True(onTcpAt - blockedAt < TimeSpan.FromSeconds(10), $"TCP only {(onTcpAt - blockedAt).TotalSeconds:F1} s after the drop");
    }

    private static MessageTransportServer StartServer(NetworkLab lab) => NetworkLab.InHost(lab.HostB, () =>
    {
        var server = new MessageTransportServer(new MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 0) },
            static async (peer, message) => await peer.SendAsync(System.Buffers.BuffersExtensions.ToArray(message)).ConfigureAwait(false));
        server.Start();
        return server;
    });

    private static async Task WaitUntilAsync(Func<bool> condition, Stopwatch clock, string what)
    {
        var deadline = clock.Elapsed + TimeSpan.FromSeconds(30);
        while (!condition())
        {
            Assert.True(clock.Elapsed < deadline, $"waited 30 s for {what}");
            await Task.Delay(20);
        }
    }

    /// <summary>Starts <c>salvo transport --json</c> in host A (every socket it opens lives there) against B's port.</summary>
    private static Process StartClient(NetworkLab lab, int port, params string[] options)
    {
        var start = new ProcessStartInfo("ip") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[]
        {
            "netns", "exec", lab.HostA, Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet",
            Path.Combine(AppContext.BaseDirectory, "Salvo.Perf.dll"), "transport", $"{NetworkLab.AddressB}:{port}", "--json",
        }.Concat(options))
        {
            start.ArgumentList.Add(arg);
        }

        return Process.Start(start) ?? throw new InvalidOperationException("could not start salvo in host A");
    }

    private static JsonElement Finish(Process process)
    {
        var error = ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        var output = ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        if (!process.WaitForExit(90_000))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail("salvo transport did not finish in 90 s");
        }

        Assert.True(process.ExitCode == 0, $"exit {process.ExitCode}: {output.Result} {error.Result}");
        return JsonDocument.Parse(output.Result).RootElement.Clone();
    }

    private static JsonElement ConnectFromA(NetworkLab lab, int port, int handshakeMilliseconds)
    {
        using var process = StartClient(lab, port, "--handshake-ms", handshakeMilliseconds.ToString(System.Globalization.CultureInfo.InvariantCulture), "-n", "5");
        return Finish(process);
    }
}
