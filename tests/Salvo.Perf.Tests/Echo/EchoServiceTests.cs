using System.Net;
using System.Net.Sockets;
using Salvo.Perf.TestServer.Echo;

namespace Salvo.Perf.Tests.Echo;

public sealed class EchoServiceTests
{
    /// <summary>Empty, one byte, one Ethernet frame's UDP payload and one more, a jumbo frame, the largest IPv4 UDP payload.</summary>
    public static TheoryData<int> Sizes => [0, 1, 1472, 1473, 9000, 65_507];

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task Udp_AnySize_ComesBackByteIdentical(int size)
    {
        await EchoesByteIdenticalAsync(size, DatagramBackend.Auto);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(65_507)]
    public async Task Udp_OnThePortableBackend_EchoesAndSaysSo(int size)
    {
        var backend = await EchoesByteIdenticalAsync(size, DatagramBackend.Portable);
        Assert.Equal(DatagramBackend.Portable, backend);
    }

    private static async Task<DatagramBackend> EchoesByteIdenticalAsync(int size, DatagramBackend backend)
    {
        await using var service = await EchoService.StartAsync(IPAddress.Loopback, 0, 1, new EchoSettings(null, backend));
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        client.Connect(service.LocalEndPoint);
        var request = Payload(size);
        var reply = new byte[65_536];

        await client.SendAsync(request);
        var received = await client.ReceiveAsync(reply).WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(request, reply.AsSpan(0, received).ToArray());

        // The worker counts a reply once its batched send returns, which can be after the client has it.
        Assert.True(Reliability.Eventually.True(() => service.Snapshot().UdpEchoed == 1, TimeSpan.FromSeconds(10)), $"echoed {service.Snapshot().UdpEchoed}");
        return service.Backend;
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task Tcp_AnySize_ComesBackByteIdenticalAndClosesAfterTheClient(int size)
    {
        await using var service = await EchoService.StartAsync(IPAddress.Loopback, 0, 1, new EchoSettings(null));
        using var stop = new CancellationTokenSource();
        var serving = service.ServeTcpAsync(stop.Token);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(service.LocalEndPoint);
        var request = Payload(size);

        await client.SendAsync(request);
        client.Shutdown(SocketShutdown.Send);
        var echoed = await ReadToEndAsync(client).WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(request, echoed);
        await stop.CancelAsync();
        await serving.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(size, service.Snapshot().TcpBytesEchoed);
    }

    [Fact]
    public async Task Udp_SourceOverItsRate_GetsTheBurstThenDropsCountedAsRateLimited()
    {
        // 0.001/s refills one token in 1,000 s: within the test only the burst of 32 can be echoed.
        await using var service = await EchoService.StartAsync(IPAddress.Loopback, 0, 1, new EchoSettings(0.001));
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        client.Connect(service.LocalEndPoint);
        const int Sent = 100;

        for (var i = 0; i < Sent; i++)
        {
            await client.SendAsync(Payload(64));
        }

        // Every datagram is received, then either echoed or dropped; the counters move in that order.
        Assert.True(Reliability.Eventually.True(
            () => service.Snapshot() is { } t && t.UdpReceived == Sent && t.UdpEchoed + t.RateLimited == Sent, TimeSpan.FromSeconds(10)));

        var totals = service.Snapshot();
        Assert.Equal(Sent, totals.UdpReceived);
        Assert.Equal(32, totals.UdpEchoed);
        Assert.Equal(Sent - 32, totals.RateLimited);
        Assert.Equal(Sent - 32, totals.Dropped);
    }

    [Fact]
    public async Task Cli_EchoRateWithoutEcho_IsRefusedNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("server", "--echo-rate", "5", "-p", "0");

        Assert.NotEqual(0, exit);
        Assert.Contains("--echo-rate", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Cli_EchoWithOneOff_IsRefusedNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("server", "--echo", "-1", "-p", "0");

        Assert.NotEqual(0, exit);
        Assert.Contains("--one-off", error, StringComparison.Ordinal);
    }

    private static byte[] Payload(int size)
    {
        var payload = new byte[size];
        new Random(size).NextBytes(payload);
        return payload;
    }

    private static async Task<byte[]> ReadToEndAsync(Socket socket)
    {
        using var all = new MemoryStream();
        var buffer = new byte[65_536];
        int read;
        while ((read = await socket.ReceiveAsync(buffer)) > 0)
        {
            all.Write(buffer, 0, read);
        }

        return all.ToArray();
    }
}
