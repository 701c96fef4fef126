using System.Net;
using System.Net.Sockets;
using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Perf.Tests.Iperf3;

public sealed class Iperf3ControlTests
{
    [Fact]
    public async Task ControlConnection_SendsStateBytesAtOnce_NagleOff()
    {
        // With Nagle on, TEST_START waited for the client's delayed ACK of CREATE_STREAMS (40 ms) while reverse-mode
        // data already flowed, and a stock client lost the start of the test (see Iperf3Control).
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen();
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(listener.LocalEndPoint!);
        var accepted = await listener.AcceptAsync();
        Assert.False(accepted.NoDelay);

        using var control = new Iperf3Control(accepted);

        Assert.True(accepted.NoDelay);
    }
}
