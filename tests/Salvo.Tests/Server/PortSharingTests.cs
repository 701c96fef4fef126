using System.Net;
using System.Net.Sockets;
using Salvo.Server;

namespace Salvo.Tests.Server;

/// <summary>
/// A server keeps its port to itself unless asked to share it: with SO_REUSEPORT on every worker's socket, the kernel
/// would otherwise let a second server of the same user join the group and split the traffic without a word.
/// </summary>
public sealed class PortSharingTests
{
    public static TheoryData<DatagramBackend> Backends => OperatingSystem.IsLinux()
        ? new() { DatagramBackend.LinuxBatched, DatagramBackend.IoUring, DatagramBackend.Portable }
        : new() { DatagramBackend.Portable };

    [Theory]
    [MemberData(nameof(Backends))]
    public async Task SecondServer_OnTheFirstServersFixedPort_IsRefusedNamingTheEndpoint(DatagramBackend backend)
    {
        await using var first = new DatagramServer(Options(backend, port: 0), new EchoHandler());
        await first.StartAsync();
        var taken = first.LocalEndPoint;

        await using var second = new DatagramServer(Options(backend, taken.Port), new EchoHandler());
        var refusal = await Assert.ThrowsAsync<SocketException>(() => second.StartAsync());

        Assert.Equal(SocketError.AddressAlreadyInUse, refusal.SocketErrorCode);
        Assert.Contains($"127.0.0.1:{taken.Port} is already in use", refusal.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(DatagramServerOptions.SharePort), refusal.Message, StringComparison.Ordinal);
        Assert.False(second.IsRunning);
        Assert.True(first.IsRunning);
    }

    [Fact]
    public async Task Server_OnAPortAPlainSocketHolds_IsRefusedNamingTheEndpoint()
    {
        using var holder = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        holder.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var port = ((IPEndPoint)holder.LocalEndPoint!).Port;

        await using var server = new DatagramServer(Options(DatagramBackend.Auto, port), new EchoHandler());
        var refusal = await Assert.ThrowsAsync<SocketException>(() => server.StartAsync());

        Assert.Equal(SocketError.AddressAlreadyInUse, refusal.SocketErrorCode);
        Assert.Contains($"127.0.0.1:{port}", refusal.Message, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task TwoServers_BothSharingAFixedPort_BothStartAndTheKernelServesBoth()
    {
        var sharing = Options(DatagramBackend.Auto, port: 0);
        sharing.SharePort = true;
        await using var first = new DatagramServer(sharing, new EchoHandler());
        await first.StartAsync();
        sharing.Port = first.LocalEndPoint.Port;
        await using var second = new DatagramServer(sharing, new EchoHandler());
        await second.StartAsync();

        Assert.True(first.IsRunning);
        Assert.True(second.IsRunning);
        Assert.Equal(first.LocalEndPoint, second.LocalEndPoint);

        // Flows from many source ports spread over the four sockets of the two servers by hash: both answer.
        var clients = Enumerable.Range(0, 32).Select(_ => ServerTestSupport.Client()).ToList();
        try
        {
            foreach (var client in clients)
            {
                client.SendTo("shared"u8, first.LocalEndPoint);
                var reply = new byte[16];
                Assert.Equal(6, client.Receive(reply));
            }
        }
        finally
        {
            clients.ForEach(client => client.Dispose());
        }

        Assert.True(first.GetStatistics().DatagramsReceived > 0, "the first server got none of 32 flows");
        Assert.True(second.GetStatistics().DatagramsReceived > 0, "the second server got none of 32 flows");
    }

    [RequiresFact(Requirement.Linux)]
    public async Task PortZero_WithManyWorkers_BindsEveryWorkerToOneFreshPort()
    {
        await using var first = new DatagramServer(ServerTestSupport.LoopbackOptions(workers: 4), new EchoHandler());
        await first.StartAsync();
        await using var second = new DatagramServer(ServerTestSupport.LoopbackOptions(workers: 4), new EchoHandler());
        await second.StartAsync();

        Assert.Equal(4, first.SocketCount);
        Assert.Equal(4, second.SocketCount);
        Assert.NotEqual(first.LocalEndPoint.Port, second.LocalEndPoint.Port);
        using var client = ServerTestSupport.Client();
        client.SendTo("zero"u8, second.LocalEndPoint);
        Assert.Equal(4, client.Receive(new byte[16]));
    }

    private static DatagramServerOptions Options(DatagramBackend backend, int port)
    {
        var options = ServerTestSupport.LoopbackOptions(workers: 2);
        options.Backend = backend;
        options.Port = port;
        return options;
    }
}
