using System.Buffers.Binary;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Iperf3;
using Salvo.Perf.TestServer.Sockperf;
using Salvo.Perf.Tests.Iperf3;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests;

/// <summary>
/// What one client, or many, can hold of 'salvo server': the kernel's accept queue, sockperf TCP connections,
/// the one test slot, and what a bad hello gets back. Loopback, ephemeral ports, every wait bounded.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ServerLimitsTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    /// <summary>With a backlog of 4, 10,000 clients connecting at once got through at about 20 a second: the kernel dropped the rest of the SYNs.</summary>
    [RequiresFact(Requirement.Linux, Tools = ["ss"])]
    public async Task Server_ControlListener_AsksTheKernelForItsLargestAcceptQueue()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        // For a listening socket ss prints the backlog it was given (capped by net.core.somaxconn) as Send-Q.
        var line = Run("ss", "-ltnH", $"sport = :{server.Port}");
        var backlog = int.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[2], CultureInfo.InvariantCulture);
        var somaxconn = int.Parse(File.ReadAllText("/proc/sys/net/core/somaxconn").Trim(), CultureInfo.InvariantCulture);
        Assert.Equal(somaxconn, backlog);
    }

    [Fact]
    public async Task Server_HundredsOfClientsAtOnce_EachGetsItsAnswer()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();

        var replies = await Task.WhenAll(Enumerable.Range(0, 300).Select(async _ =>
        {
            using var client = await ConnectAsync(server.Port);
            await client.SendAsync("{\"type\":\"probe\"}\n"u8.ToArray());
            return await ReadLineAsync(client);
        })).WaitAsync(TimeSpan.FromSeconds(120));

        Assert.All(replies, r => Assert.Contains("expected a hello", r, StringComparison.Ordinal));
    }

    /// <summary>Before, 349 silent sockperf connections were held for good.</summary>
    [Fact]
    public async Task Sockperf_ConnectionThatGoesSilent_IsClosedAfterTheIdleTimeout()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text, options: ["--sockperf-idle-timeout", "1"]);
        using var client = await ConnectAsync(server.Port);
        await client.SendAsync(SockperfMessage(1, SockperfFlags.Client | SockperfFlags.PongRequest));
        Assert.Equal(SockperfHeader.Size, (await ReadAsync(client, SockperfHeader.Size)).Length);

        var rest = await ReadAsync(client, 1);

        Assert.Empty(rest); // the server closed it
        Assert.True(await server.WaitForLogAsync("closed: nothing received for 1 s (--sockperf-idle-timeout)"), server.Log);
        var total = await server.StopAsync();
        Assert.Contains("1 closed idle", total, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Sockperf_OneConnectionOverTheCap_IsRefusedAndTheOthersServed()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text, options: ["--sockperf-max-connections", "2"]);
        using var first = await SockperfClientAsync(server.Port);
        using var second = await SockperfClientAsync(server.Port);
        Assert.True(await server.WaitForLogAsync($"sockperf TCP client {second.LocalEndPoint}"), server.Log);

        using var third = await ConnectAsync(server.Port);
        await third.SendAsync(SockperfMessage(1, SockperfFlags.Client | SockperfFlags.PongRequest));

        Assert.Empty(await ReadAsync(third, 1));
        Assert.True(await server.WaitForLogAsync("refused: 2 sockperf TCP connections are open (--sockperf-max-connections)"), server.Log);
        await first.SendAsync(SockperfMessage(2, SockperfFlags.Client | SockperfFlags.PongRequest));
        Assert.Equal(SockperfHeader.Size, (await ReadAsync(first, SockperfHeader.Size)).Length);
        var total = await server.StopAsync();
        Assert.Contains("1 refused over the cap", total, StringComparison.Ordinal);
    }

    /// <summary>Before, with 1,024 silent connections pending, every new connection was closed at once for up to the sort timeout.</summary>
    [Fact]
    public async Task Server_MoreSilentConnectionsThanTheCap_TheOldestGiveWayAndARealClientIsServed()
    {
        await using var server = await SalvoServerUnderTest.StartAsync(format: OutputFormat.Text);
        var silent = new List<Socket>();
        try
        {
            for (var i = 0; i < ServerLimits.DefaultMaxPending + 100; i++)
            {
                silent.Add(await ConnectAsync(server.Port));
            }

            Assert.True(await server.WaitForLogAsync("the oldest silent one gives way to a new one"), server.Log);
            var clock = Stopwatch.StartNew();

            var (exit, _, error) = await Cli.RunAsync("client", "127.0.0.1", "-p", Port(server), "-t", "0.5", "-b", "1M", "-i", "0");

            Assert.True(exit == 0, error + server.Log);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"the client took {clock.Elapsed}");
            Assert.Empty(await ReadAsync(silent[0], 1)); // the oldest was closed to make room
        }
        finally
        {
            foreach (var socket in silent)
            {
                socket.Dispose();
            }
        }
    }

    /// <summary>Five clients that sent a valid iperf3 cookie and nothing else held the slot for 50 s, one after another.</summary>
    [Fact]
    public async Task Server_ClientsStuckAfterTheIperf3Cookie_HoldNoSlot()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        var stuck = await StuckAfterTheCookieAsync(server.Port, 5);

        try
        {
            var (exit, _, error) = await Cli.RunAsync("client", "127.0.0.1", "-p", Port(server), "-t", "0.5", "-b", "1M", "-i", "0");

            Assert.True(exit == 0, error + server.Log);
            foreach (var client in stuck)
            {
                Assert.Equal(Iperf3State.ParamExchange, (Iperf3State)(sbyte)Assert.Single(await ReadAsync(client, 1)));
                Assert.Empty(await ReadAsync(client, 1)); // closed when the handshake's deadline passed
            }

            Assert.True(await server.WaitForLogAsync("cookie and parameters not complete within 5 s"), server.Log);
        }
        finally
        {
            foreach (var client in stuck)
            {
                client.Dispose();
            }
        }
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task Server_ClientsStuckAfterTheIperf3Cookie_StockIperf3StartsAtOnce()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        var stuck = await StuckAfterTheCookieAsync(server.Port, 5);

        try
        {
            // Each stuck client held the slot for 10 s before: the stock client's 1 s test ended after 50 s.
            var (exit, output, error) = await Iperf3Binary.RunAsync("-u", "-c", "127.0.0.1", "-p", Port(server), "-t", "1", "-b", "1M").WaitAsync(TimeSpan.FromSeconds(20));

            Assert.True(exit == 0, output + error + server.Log);
        }
        finally
        {
            foreach (var client in stuck)
            {
                client.Dispose();
            }
        }
    }

    [Fact]
    public async Task Server_Iperf3ClientWhileATestRuns_GetsAccessDenied()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        using var running = await HoldTheSlotAsync(server.Port);
        using var client = await ConnectAsync(server.Port);

        await client.SendAsync(Iperf3Cookie.Create());
        Assert.Equal(Iperf3State.ParamExchange, (Iperf3State)(sbyte)Assert.Single(await ReadAsync(client, 1)));
        await client.SendAsync(Iperf3Json("""{"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":500,"bandwidth":1000000,"pacing_timer":1000,"client_version":"3.12"}"""));

        Assert.Equal(Iperf3State.AccessDenied, (Iperf3State)(sbyte)Assert.Single(await ReadAsync(client, 1)));
        Assert.Empty(await ReadAsync(client, 1));
        Assert.True(await server.WaitForLogAsync($"refused iperf3 client {client.LocalEndPoint}: busy: the server is running a test for {running.LocalEndPoint}"), server.Log);
    }

    [RequiresFact(Tools = ["iperf3"])]
    public async Task Server_StockIperf3WhileATestRuns_SaysTheServerIsBusy()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        using var running = await HoldTheSlotAsync(server.Port);

        var (exit, output, error) = await Iperf3Binary.RunAsync("-u", "-c", "127.0.0.1", "-p", Port(server), "-t", "1", "-b", "1M");

        Assert.NotEqual(0, exit);
        Assert.Contains("the server is busy running a test. try again later", output + error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Server_SalvoClientWhileATestRuns_IsToldTheServerIsBusy()
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        using var running = await HoldTheSlotAsync(server.Port);

        var (exit, _, error) = await Cli.RunAsync("client", "127.0.0.1", "-p", Port(server), "-t", "0.5", "-i", "0");

        Assert.Equal(1, exit);
        Assert.Contains($"the server refused the test: busy: the server is running a test for {running.LocalEndPoint}; try again when it ends", error, StringComparison.Ordinal);
    }

    /// <summary>Each was closed with nothing sent back before; the reason was only in the server's log.</summary>
    [Theory]
    [InlineData("{\"type\":\"hello\",\"version\":1,\"lengthBytes\":64,\"bitsPerSecond\":1e20,\"durationSeconds\":1,\"parallel\":1}",
        "bitsPerSecond: 1e20 is not a whole number of bits per second, 0 (unlimited) to 9223372036854775807")]
    [InlineData("{\"type\":\"hello\",\"version\":1,\"lengthBytes\":\"big\",\"bitsPerSecond\":0,\"durationSeconds\":1,\"parallel\":1}",
        "lengthBytes: \"big\" is not a whole number of bytes, 24..65507")]
    [InlineData("[[[", "a control message is one JSON object per line ({\"type\":...}); got '[[['")]
    [InlineData("long", "control line longer than 4096 bytes")]
    public async Task Server_MalformedHello_IsAnsweredWithAnErrorNamingWhatIsWrong(string hello, string reason)
    {
        await using var server = await SalvoServerUnderTest.StartAsync();
        using var client = await ConnectAsync(server.Port);
        var line = hello == "long" ? "{\"type\":\"hello\",\"pad\":\"" + new string('a', 10_000) + "\"}" : hello;

        await client.SendAsync(Encoding.UTF8.GetBytes(line + "\n"));
        var reply = ControlChannel.Parse(Encoding.UTF8.GetBytes(await ReadLineAsync(client)));

        Assert.Equal("error", reply.Type);
        Assert.Equal(reason, reply.Reason);
        Assert.True(await server.WaitForLogAsync($"rejected {client.LocalEndPoint}: {reason}"), server.Log);
    }

    /// <summary>Clients that send a valid iperf3 cookie and nothing else.</summary>
    private static async Task<Socket[]> StuckAfterTheCookieAsync(int port, int count) => await Task.WhenAll(Enumerable.Range(0, count).Select(async _ =>
    {
        var client = await ConnectAsync(port);
        await client.SendAsync(Iperf3Cookie.Create());
        return client;
    }));

    /// <summary>A Salvo forward test that never sends its done: it holds the slot until this connection closes.</summary>
    private static async Task<Socket> HoldTheSlotAsync(int port)
    {
        var client = await ConnectAsync(port);
        await client.SendAsync("{\"type\":\"hello\",\"version\":1,\"lengthBytes\":64,\"bitsPerSecond\":0,\"durationSeconds\":60,\"parallel\":1}\n"u8.ToArray());
        Assert.Contains("\"ready\"", await ReadLineAsync(client), StringComparison.Ordinal);
        return client;
    }

    private static async Task<Socket> SockperfClientAsync(int port)
    {
        var client = await ConnectAsync(port);
        await client.SendAsync(SockperfMessage(1, SockperfFlags.Client | SockperfFlags.PongRequest));
        Assert.Equal(SockperfHeader.Size, (await ReadAsync(client, SockperfHeader.Size)).Length);
        return client;
    }

    private static byte[] SockperfMessage(ulong sequence, SockperfFlags flags)
    {
        var message = new byte[SockperfHeader.Size];
        new SockperfHeader(sequence, flags, message.Length).Write(message);
        return message;
    }

    private static byte[] Iperf3Json(string json)
    {
        var bytes = Encoding.UTF8.GetBytes(json);
        var message = new byte[4 + bytes.Length];
        BinaryPrimitives.WriteUInt32BigEndian(message, (uint)bytes.Length);
        bytes.CopyTo(message, 4);
        return message;
    }

    private static string Port(SalvoServerUnderTest server) => server.Port.ToString(CultureInfo.InvariantCulture);

    private static async Task<Socket> ConnectAsync(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, port)).WaitAsync(Bound);
        return socket;
    }

    /// <summary>Up to <paramref name="count"/> bytes; fewer (none) when the server closed first. Bounded.</summary>
    private static async Task<byte[]> ReadAsync(Socket socket, int count)
    {
        var buffer = new byte[count];
        var read = 0;
        using var deadline = new CancellationTokenSource(Bound);
        while (read < count)
        {
            int n;
            try
            {
                n = await socket.ReceiveAsync(buffer.AsMemory(read), SocketFlags.None, deadline.Token);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
            {
                n = 0;
            }

            if (n == 0)
            {
                break;
            }

            read += n;
        }

        return buffer[..read];
    }

    private static async Task<string> ReadLineAsync(Socket socket)
    {
        var line = new List<byte>();
        while (true)
        {
            var one = await ReadAsync(socket, 1);
            if (one.Length == 0 || one[0] == '\n')
            {
                return Encoding.UTF8.GetString([.. line]);
            }

            line.Add(one[0]);
        }
    }

    private static string Run(string file, params string[] args)
    {
        var start = new ProcessStartInfo(file) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEnd();
        Assert.True(process.WaitForExit(10_000), $"{file} did not end");
        return output;
    }
}
