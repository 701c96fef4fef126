using System.Buffers;
using System.Diagnostics;
using System.Net;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>A TCP transport whose server goes away and comes back on the same port keeps delivering.</summary>
public sealed class MessageTransportReconnectTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private readonly Channel<byte[]> _echoes = Channel.CreateUnbounded<byte[]>();

    [Fact]
    public async Task TcpOnly_ServerDisposedAndStartedAgainOnTheSamePort_KeepsDelivering()
    {
        var first = StartServer(new IPEndPoint(IPAddress.Loopback, 0));
        var endPoint = first.LocalEndPoint!;
        await using var transport = Client(new MessageTransportOptions { Mode = TransportMode.TcpOnly });
        await transport.ConnectAsync(endPoint);
        Assert.True(await RoundTripAsync(transport, 1), "no echo before the restart");

        await first.DisposeAsync();
        await using var second = StartServer(endPoint);

        Assert.True(await RoundTripAsync(transport, 2), "nothing got through after the server came back");
        Assert.Equal(TransportKind.Tcp, transport.Transport);
    }

    [Fact]
    public async Task TcpOnly_ServerRestarted_SaysAtOnceThatTheConnectionClosedAndWhenItIsBack()
    {
        var first = StartServer(new IPEndPoint(IPAddress.Loopback, 0));
        var endPoint = first.LocalEndPoint!;
        await using var transport = Client(new MessageTransportOptions { Mode = TransportMode.TcpOnly });
        var closed = new TaskCompletionSource<TcpConnectionClosedEventArgs>(TaskCreationOptions.RunContinuationsAsynchronously);
        var reopened = new TaskCompletionSource<TcpConnectionReopenedEventArgs>(TaskCreationOptions.RunContinuationsAsynchronously);
        transport.TcpConnectionClosed += (_, e) => closed.TrySetResult(e);
        transport.TcpConnectionReopened += (_, e) => reopened.TrySetResult(e);
        await transport.ConnectAsync(endPoint);

        await first.DisposeAsync();
        var closing = await closed.Task.WaitAsync(Patience);
        Assert.Equal(StreamCloseReason.RemoteClosed, closing.Reason);
        Assert.True(closing.Reconnecting);
        Assert.False(await transport.SendAsync(new byte[] { 1 }), "a send while the connection is down must be refused, not queued");

        await using var second = StartServer(endPoint);
        var back = await reopened.Task.WaitAsync(Patience);
        Assert.True(back.Attempts >= 1);
        Assert.True(await RoundTripAsync(transport, 2), "nothing got through after the connection was back");
        var stats = transport.GetStatistics();
        Assert.Equal(1, stats.TcpReconnects);
        Assert.True(stats.MessagesRefused >= 1);
        Assert.Equal(stats.TcpMessagesSent, stats.TcpMessagesReceived);
    }

    [Fact]
    public async Task TcpOnly_ReconnectOff_SaysTheConnectionClosedAndStaysClosed()
    {
        var first = StartServer(new IPEndPoint(IPAddress.Loopback, 0));
        var endPoint = first.LocalEndPoint!;
        await using var transport = Client(new MessageTransportOptions { Mode = TransportMode.TcpOnly, TcpReconnect = false, TcpReconnectBackoff = new(TimeSpan.FromMilliseconds(10), TimeSpan.FromSeconds(5), 0.2) });
        var closed = new TaskCompletionSource<TcpConnectionClosedEventArgs>(TaskCreationOptions.RunContinuationsAsynchronously);
        transport.TcpConnectionClosed += (_, e) => closed.TrySetResult(e);
        await transport.ConnectAsync(endPoint);

        await first.DisposeAsync();
        Assert.False((await closed.Task.WaitAsync(Patience)).Reconnecting);
        await using var second = StartServer(endPoint);
        // Were it reconnecting, 10 ms would be its first try; half a second is fifty of them.
        await Task.Delay(500);

        Assert.False(await transport.SendAsync(new byte[] { 1 }));
        Assert.Equal(0, second.GetStatistics().TcpConnections);
        Assert.Equal(0, transport.GetStatistics().TcpReconnects);
    }

    [Fact]
    public async Task UdpFirstOnTcp_ServerRestarted_ReconnectsOverTcp()
    {
        var noHandshake = new MessageTransportServerOptions { EndPoint = new IPEndPoint(IPAddress.Loopback, 0), AnswerHandshake = false };
        var first = StartServer(noHandshake);
        var endPoint = first.LocalEndPoint!;
        await using var transport = Client(new MessageTransportOptions { HandshakeTimeout = TimeSpan.FromMilliseconds(200), UdpReprobe = false });
        await transport.ConnectAsync(endPoint);
        Assert.Equal(TransportKind.Tcp, transport.Transport);

        await first.DisposeAsync();
        await using var second = StartServer(new MessageTransportServerOptions { EndPoint = endPoint, AnswerHandshake = false });

        Assert.True(await RoundTripAsync(transport, 3), "nothing got through after the server came back");
        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Equal(1, transport.GetStatistics().TcpReconnects);
    }

    [Theory]
    [InlineData("TcpReconnectBackoff.FirstDelay")]
    [InlineData("TcpReconnectBackoff.MaxDelay")]
    [InlineData("TcpReconnectBackoff.Jitter")]
    [InlineData(nameof(MessageTransportOptions.TcpReconnectBackoff))]
    [InlineData(nameof(MessageTransportOptions.UdpReceiveBufferSize))]
    [InlineData(nameof(MessageTransportOptions.UdpSendBufferSize))]
    public void Options_BadReconnectOrBufferValue_ThrowsNamingIt(string option)
    {
        var options = new MessageTransportOptions();
        switch (option)
        {
            case "TcpReconnectBackoff.FirstDelay": options.TcpReconnectBackoff = options.TcpReconnectBackoff with { FirstDelay = TimeSpan.Zero }; break;
            case "TcpReconnectBackoff.MaxDelay": options.TcpReconnectBackoff = options.TcpReconnectBackoff with { MaxDelay = TimeSpan.FromMilliseconds(50) }; break;
            case "TcpReconnectBackoff.Jitter": options.TcpReconnectBackoff = options.TcpReconnectBackoff with { Jitter = 1.5 }; break;
            case nameof(MessageTransportOptions.TcpReconnectBackoff): options.TcpReconnectBackoff = null!; break;
            case nameof(MessageTransportOptions.UdpReceiveBufferSize): options.UdpReceiveBufferSize = 0; break;
            default: options.UdpSendBufferSize = -1; break;
        }

        var e = Assert.ThrowsAny<ArgumentException>(options.Validate);
        Assert.Equal(option, e.ParamName);
    }

    [Fact]
    public void ServerOptions_ZeroUdpReceiveBuffer_ThrowsNamingIt()
    {
        var e = Assert.ThrowsAny<ArgumentException>(new MessageTransportServerOptions { UdpReceiveBufferSize = 0 }.Validate);
        Assert.Equal(nameof(MessageTransportServerOptions.UdpReceiveBufferSize), e.ParamName);
    }

    private MessageTransport Client(MessageTransportOptions options) => new(options, (_, message) =>
    {
        _echoes.Writer.TryWrite(message.ToArray());
        return ValueTask.CompletedTask;
    });

    private static MessageTransportServer StartServer(IPEndPoint endPoint) => StartServer(new MessageTransportServerOptions { EndPoint = endPoint });

    private static MessageTransportServer StartServer(MessageTransportServerOptions options)
    {
        var server = new MessageTransportServer(options,
            async (peer, message) => await peer.SendAsync(message.ToArray()));
        server.Start();
        return server;
    }

    /// <summary>Sends <paramref name="number"/> until its echo comes (a refused or unanswered send is tried again), within <see cref="Patience"/>.</summary>
    private async Task<bool> RoundTripAsync(MessageTransport transport, byte number)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < Patience)
        {
            if (!await transport.SendAsync(new[] { number }))
            {
                await Task.Delay(50);
                continue;
            }

            using var wait = new CancellationTokenSource(TimeSpan.FromSeconds(1));
            try
            {
                while (true)
                {
                    var echo = await _echoes.Reader.ReadAsync(wait.Token);
                    if (echo.Length == 1 && echo[0] == number)
                    {
                        return true;
                    }
                }
            }
            catch (OperationCanceledException)
            {
                // No echo within a second: send again.
            }
        }

        return false;
    }
}
