using System.Buffers.Binary;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;

namespace Salvo.Perf.Tests.Iperf3;

/// <summary>
/// 'salvo server' and 'salvo client --iperf3' against the stock iperf3 binary: each pair completes and
/// both tools report the same counts. One-second tests at 2 Mbit/s, so loopback loses nothing in practice;
/// the assertions compare counts, not expect zero.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class Iperf3InteropTests
{
    private static readonly string[] Rate = ["-t", "1", "-b", "2M", "-l", "500"];

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockClient_AgainstSalvoServer_BothReportTheSameCounts() =>
        await AssertStockClientAgreesAsync(reverse: false, parallel: 1);

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockClientReverse_AgainstSalvoServer_BothReportTheSameCounts() =>
        await AssertStockClientAgreesAsync(reverse: true, parallel: 1);

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockClientTwoStreams_AgainstSalvoServer_BothReportTheSameCounts() =>
        await AssertStockClientAgreesAsync(reverse: false, parallel: 2);

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockClientFourStreams_AgainstSalvoServer_AreReceivedOnTheServersWorkers_NotOnAThreadPerStream()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        var client = Iperf3Binary.RunAsync("-u", "-c", "127.0.0.1", "-p", Port(server), "-P", "4", "-t", "2", "-b", "2M", "-l", "500", "--json");

        // The server runs in this process: its threads are this process's, sampled for as long as the test runs.
        var threads = new HashSet<string>();
        for (var i = 0; i < 600 && !client.IsCompleted; i++)
        {
            foreach (var task in Directory.GetDirectories("/proc/self/task"))
            {
                try
                {
                    threads.Add(File.ReadAllText(Path.Combine(task, "comm")).Trim());
                }
                catch (IOException)
                {
                    // The thread ended between the listing and the read.
                }
            }

            await Task.Delay(100);
        }

        var (exit, output, error) = await client.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.True(exit == 0, output + error + server.Log);
        Assert.DoesNotContain(threads, name => name.StartsWith("salvo-iperf3-re", StringComparison.Ordinal));
        Assert.Equal(Iperf3Summary.Parse(output).SentPackets, Datagrams((await server.ReportAsync(1)).GetProperty("local")));
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockClientPastCounter65536_AgainstSalvoServer_CountsEveryDatagram()
    {
        // Counter 65,536 puts flag 1 and a small length where a sockperf header has them: such a datagram went to the
        // sockperf service and missed from its stream. 2 s of 64 B datagrams at 20 Mbit/s: 78,000 of them.
        await using var server = await SalvoServerUnderTest.StartAsync();

        var (exit, output, error) = await Iperf3Binary.RunAsync("-u", "-c", "127.0.0.1", "-p", Port(server), "-t", "2", "-b", "20M", "-l", "64", "--json");

        Assert.True(exit == 0, output + error + server.Log);
        var receiver = (await server.ReportAsync(1)).GetProperty("local");
        Assert.Equal(Iperf3Summary.Parse(output).SentPackets, Datagrams(receiver));
        Assert.Equal(0, Lost(receiver));
    }

    [RequiresTheory(Tools = ["iperf3"])]
    [InlineData(false)]
    [InlineData(true)]
    public async Task SalvoClient_AgainstStockServer_BothReportTheSameCounts(bool reverse)
    {
        var port = Iperf3Binary.FreePort();
        using var server = Iperf3Binary.Start("-s", "-1", "-p", port.ToString(CultureInfo.InvariantCulture), "--json");
        try
        {
            await Iperf3Binary.WaitForListenerAsync(port, server);
            string[] args = ["client", "--iperf3", "127.0.0.1", "-p", port.ToString(CultureInfo.InvariantCulture), "-P", "2", .. Rate, "-i", "0", "--json"];
            var (exit, output, error) = await Cli.RunAsync(reverse ? [.. args, "-R"] : args).WaitAsync(TimeSpan.FromSeconds(60));
            Assert.True(exit == 0, output + error);
            var iperf3 = Iperf3Summary.Parse(await server.StandardOutput.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(30)));

            using var document = JsonDocument.Parse(output);
            var sender = document.RootElement.GetProperty("sender");
            var receiver = document.RootElement.GetProperty("receiver");
            Assert.Equal(2, iperf3.Streams);
            Assert.True(Datagrams(sender) > 0, output);
            if (reverse)
            {
                // iperf3 -s fills only its own side: here the datagrams it sent.
                Assert.Equal(iperf3.SentPackets, Datagrams(sender));
            }
            else
            {
                // iperf3 -s stops reading at TEST_END: datagrams still queued then are missing from its total.
                Assert.InRange(iperf3.ReceivedPackets, 1, Datagrams(sender));
                Assert.Equal(iperf3.ReceivedPackets - iperf3.Lost, Datagrams(receiver));
                Assert.InRange(iperf3.Lost, 0, Lost(receiver));
                Assert.Equal(iperf3.ReceivedBytes, receiver.GetProperty("bytes").GetInt64());
            }

            Assert.Equal(Datagrams(sender) - Datagrams(receiver), Lost(receiver));
        }
        finally
        {
            await StopAsync(server);
        }
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task OneOffServer_AfterARefusedClientAndOneTest_Exits()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(oneOff: true);

        // A refused TCP test is no test: the one-off server keeps waiting.
        await Iperf3Binary.RunAsync("-c", "127.0.0.1", "-p", Port(server), "-t", "1");
        Assert.True(await server.WaitForLogAsync("TCP tests are not supported"), server.Log);
        Assert.False(server.Stopped, server.Log);

        await AssertServesStockClientAsync(server, reportNumber: 1);
        Assert.Equal(0, await server.StoppedAsync());
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task StockTcpClient_IsRefusedNamingUdp_AndTheServerServesTheNextClient()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        var (exit, output, error) = await Iperf3Binary.RunAsync("-c", "127.0.0.1", "-p", Port(server), "-t", "1");

        Assert.NotEqual(0, exit);
        Assert.Contains("Protocol not supported", output + error, StringComparison.Ordinal);
        Assert.True(await server.WaitForLogAsync("TCP tests are not supported"), server.Log);
        Assert.Contains("UDP tests (-u)", server.Log, StringComparison.Ordinal);
        await AssertServesStockClientAsync(server, reportNumber: 1);
    }

    [RequiresTheory(Tools = ["iperf3"])]
    [InlineData("oversized JSON length", "JSON length 4294967295 is outside")]
    [InlineData("zero JSON length", "JSON length 0 is outside")]
    [InlineData("parameters not JSON", "the parameters are not valid JSON")]
    [InlineData("bad cookie", "cookie byte 3 is 0x21")]
    public async Task MalformedControlMessage_EndsThatTestWithLoggedReason_AndTheServerServesTheNextClient(string malformation, string logged)
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        using (var raw = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            await raw.ConnectAsync(IPAddress.Loopback, server.Port);
            await raw.SendAsync(Malformed(malformation));
            Assert.True(await server.WaitForLogAsync(logged), $"expected '{logged}' in the log: {server.Log}");
            await ReadToCloseAsync(raw);
        }

        await AssertServesStockClientAsync(server, reportNumber: 1);
    }

    private static async Task AssertStockClientAgreesAsync(bool reverse, int parallel)
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        string[] args = ["-u", "-c", "127.0.0.1", "-p", Port(server), "-P", parallel.ToString(CultureInfo.InvariantCulture), .. Rate, "--json"];

        var (exit, output, error) = await Iperf3Binary.RunAsync(reverse ? [.. args, "-R"] : args);

        Assert.True(exit == 0, output + error + server.Log);
        var iperf3 = Iperf3Summary.Parse(output);
        var report = await server.ReportAsync(1);
        Assert.Equal(reverse, report.GetProperty("reverse").GetBoolean());
        var local = report.GetProperty("local");
        var peer = report.GetProperty("peer");
        var (sender, receiver) = reverse ? (local, peer) : (peer, local);
        Assert.Equal(parallel, iperf3.Streams);
        Assert.True(iperf3.SentPackets > 0, output);
        Assert.Equal(iperf3.SentPackets, Datagrams(sender));
        Assert.Equal(iperf3.ReceivedPackets - iperf3.Lost, Datagrams(receiver));
        Assert.Equal(iperf3.ReceivedBytes, receiver.GetProperty("bytes").GetInt64());

        // Salvo counts loss against the sender's count; iperf3's own receiver (with -R) misses a tail still queued at TEST_END.
        Assert.Equal(Datagrams(sender) - Datagrams(receiver), Lost(receiver));
        Assert.InRange(iperf3.Lost, 0, Lost(receiver));
        Assert.Equal(0, receiver.GetProperty("malformed").GetInt64());
    }

    /// <summary>A stock client's plain UDP test completes and the server reports it as its <paramref name="reportNumber"/>-th.</summary>
    private static async Task AssertServesStockClientAsync(SalvoServerUnderTest server, int reportNumber)
    {
        var (exit, output, error) = await Iperf3Binary.RunAsync(["-u", "-c", "127.0.0.1", "-p", Port(server), .. Rate, "--json"]);
        Assert.True(exit == 0, output + error + server.Log);
        var iperf3 = Iperf3Summary.Parse(output);
        Assert.Equal(iperf3.SentPackets, Datagrams((await server.ReportAsync(reportNumber)).GetProperty("peer")));
    }

    /// <summary>A control connection that starts like iperf3's and then goes wrong.</summary>
    private static byte[] Malformed(string malformation)
    {
        var cookie = Encoding.ASCII.GetBytes("abcdefghijklmnopqrstuvwxyz2345672345\0");
        return malformation switch
        {
            "oversized JSON length" => [.. cookie, 0xFF, 0xFF, 0xFF, 0xFF],
            "zero JSON length" => [.. cookie, 0, 0, 0, 0],
            "parameters not JSON" => [.. cookie, .. Length(9), .. "{\"udp\":tr"u8],
            "bad cookie" => [.. "abc!defghijklmnopqrstuvwxyz234567234\0"u8],
            _ => throw new ArgumentOutOfRangeException(nameof(malformation)),
        };
    }

    private static byte[] Length(int length)
    {
        var prefix = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(prefix, length);
        return prefix;
    }

    /// <summary>Reads what the server sends until it closes the connection (bounded: a server that keeps it open fails the test).</summary>
    private static async Task ReadToCloseAsync(Socket raw)
    {
        var buffer = new byte[256];
        while (await raw.ReceiveAsync(buffer, SocketFlags.None).WaitAsync(TimeSpan.FromSeconds(30)) > 0)
        {
        }
    }

    private static long Datagrams(JsonElement side) => side.GetProperty("datagrams").GetInt64();

    private static long Lost(JsonElement side) => side.GetProperty("lost").GetInt64();

    private static string Port(SalvoServerUnderTest server) => server.Port.ToString(CultureInfo.InvariantCulture);

    private static async Task StopAsync(System.Diagnostics.Process process)
    {
        if (!process.HasExited)
        {
            process.Kill();
        }

        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(30));
    }
}
