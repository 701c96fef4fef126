using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

public sealed class MessageTransportTests
{
    private readonly Channel<byte[]> _replies = Channel.CreateUnbounded<byte[]>();
    private readonly ConcurrentQueue<TransportKind> _serverSaw = new();

    [Fact]
    public async Task UdpFirst_ServerAnswers_StaysOnUdp_AndMessagesRoundTrip()
    {
        await using var server = StartServer(new MessageTransportServerOptions());
        await using var transport = Client(TransportMode.UdpFirst);
        TransportSelectedEventArgs? selected = null;
        transport.TransportSelected += (_, e) => selected = e;

        await transport.ConnectAsync(server.LocalEndPoint!);

        Assert.Equal(TransportKind.Udp, transport.Transport);
        Assert.Equal(TransportKind.Udp, selected?.Transport);
        Assert.True(server.HandshakesAnswered >= 1);
        await AssertRoundTripsAsync(transport, TransportKind.Udp);
    }

    [Fact]
    public async Task UdpFirst_ServerIgnoresHandshake_FallsBackToTcpAfterTheTimeout()
    {
        await using var server = StartServer(new MessageTransportServerOptions { AnswerHandshake = false });
        await using var transport = Client(TransportMode.UdpFirst);
        TransportSelectedEventArgs? selected = null;
        transport.TransportSelected += (_, e) => selected = e;

        await transport.ConnectAsync(server.LocalEndPoint!);

        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Contains("no UDP handshake answer", selected?.Reason, StringComparison.Ordinal);
        Assert.Equal(0, server.HandshakesAnswered);
        await AssertRoundTripsAsync(transport, TransportKind.Tcp);
    }

    [Fact]
    public async Task UdpFirst_ServerWithoutUdp_FallsBackToTcpOnThePortUnreachable()
    {
        await using var server = StartServer(new MessageTransportServerOptions { EnableUdp = false });
        await using var transport = Client(TransportMode.UdpFirst);
        TransportSelectedEventArgs? selected = null;
        transport.TransportSelected += (_, e) => selected = e;

        await transport.ConnectAsync(server.LocalEndPoint!);

        // Linux does not rate-limit ICMP on loopback (icmpv4_xrlim_allow), so the port-unreachable always comes.
        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Contains("unreachable", selected?.Reason, StringComparison.Ordinal);
        await AssertRoundTripsAsync(transport, TransportKind.Tcp);
    }

    [Fact]
    public async Task UdpFirst_NothingListening_ErrorSaysWhatUdpAndThenTcpGot()
    {
        // Bound and not listening holds the port number: TCP connects are refused and no UDP socket is there.
        using var holder = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        holder.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        await using var transport = Client(TransportMode.UdpFirst);

        var e = await Assert.ThrowsAsync<SocketException>(() => transport.ConnectAsync((IPEndPoint)holder.LocalEndPoint!));

        Assert.Equal(SocketError.ConnectionRefused, e.SocketErrorCode);
        Assert.StartsWith("UDP was tried first: the server's UDP port is unreachable (ICMP); then TCP: ", e.Message, StringComparison.Ordinal);
        Assert.Equal(TransportKind.None, transport.Transport);
    }

    [Fact]
    public async Task TcpOnly_ServerWithUdp_UsesTcpWithoutAHandshake()
    {
        await using var server = StartServer(new MessageTransportServerOptions());
        await using var transport = Client(TransportMode.TcpOnly);

        await transport.ConnectAsync(server.LocalEndPoint!);

        Assert.Equal(TransportKind.Tcp, transport.Transport);
        Assert.Equal(0, server.HandshakesAnswered);
        Assert.NotNull(transport.TcpConnection);
        await AssertRoundTripsAsync(transport, TransportKind.Tcp);
    }

    [Fact]
    public async Task UdpOnly_NoHandshake_MessagesGoAsDatagrams()
    {
        await using var server = StartServer(new MessageTransportServerOptions());
        await using var transport = Client(TransportMode.UdpOnly);

        await transport.ConnectAsync(server.LocalEndPoint!);

        Assert.Equal(TransportKind.Udp, transport.Transport);
        Assert.Equal(0, server.HandshakesAnswered);
        await AssertRoundTripsAsync(transport, TransportKind.Udp);
    }

    [Fact]
    public void MessageTransport_ZeroHandshakeTimeout_ThrowsNamingIt()
    {
        var options = new MessageTransportOptions { HandshakeTimeout = TimeSpan.Zero };
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new MessageTransport(options, (_, _) => default));
        Assert.Equal(nameof(MessageTransportOptions.HandshakeTimeout), e.ParamName);
    }

    [Fact]
    public async Task SendAsync_OverUdp_MessageLongerThanADatagram_Throws()
    {
        await using var server = StartServer(new MessageTransportServerOptions());
        await using var transport = Client(TransportMode.UdpFirst);
        await transport.ConnectAsync(server.LocalEndPoint!);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await transport.SendAsync(new byte[65_507]));
    }

    private MessageTransportServer StartServer(MessageTransportServerOptions options)
    {
        var server = new MessageTransportServer(options, async (peer, message) =>
        {
            _serverSaw.Enqueue(peer.Transport);
            Assert.True(await peer.SendAsync(message.ToArray()));
        });
        server.Start();
        return server;
    }

    private MessageTransport Client(TransportMode mode) => new(
        new MessageTransportOptions { Mode = mode, HandshakeTimeout = TimeSpan.FromMilliseconds(400) },
        (_, message) =>
        {
            _replies.Writer.TryWrite(message.ToArray());
            return ValueTask.CompletedTask;
        });

    /// <summary>One message in flight at a time, so that nothing is lost to a full buffer over UDP.</summary>
    private async Task AssertRoundTripsAsync(MessageTransport transport, TransportKind expected)
    {
        for (var i = 0; i < 20; i++)
        {
            var message = StreamTestKit.Message(i, i * 61);
            Assert.True(await transport.SendAsync(message));
            Assert.Equal(message, await _replies.Reader.ReadAsync().AsTask().WaitAsync(RecordingHandler.Patience));
        }

        Assert.All(_serverSaw, kind => Assert.Equal(expected, kind));
        Assert.Equal(20, _serverSaw.Count);
    }
}
