using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Server;

namespace Salvo.Streams;

/// <summary>
/// The server side of <see cref="MessageTransport"/>: listens on UDP and TCP on the same port number, answers UDP
/// handshakes, and hands every message, whichever way it came, to one <see cref="MessageHandler"/>. The UDP side is a
/// <see cref="DatagramServer"/> with one worker, so receive errors are counted, logged and survived as in any server.
/// </summary>
public sealed class MessageTransportServer : IAsyncDisposable
{
    // Port 0: the TCP port the kernel picks may be taken for UDP; a few tries find a number free for both.
    private const int PortAttempts = 10;

    private readonly MessageTransportServerOptions _options;
    private readonly MessageHandler _handler;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private StreamServer? _tcp;
    private DatagramServer? _udp;
    private UdpHandler? _udpHandler;
    private long _handshakesAnswered;
    private long _udpReceived;
    private long _udpDropped;
    private long _tcpReceived;

    /// <summary>Creates a server; <see cref="Start"/> opens the ports.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public MessageTransportServer(MessageTransportServerOptions options, MessageHandler handler)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        options.Validate();
        _options = options;
        _handler = handler;
        _logger = options.Tcp.Logger ?? NullLogger.Instance;
    }

    /// <summary>The bound address and port, shared by UDP and TCP; null before <see cref="Start"/>.</summary>
    public IPEndPoint? LocalEndPoint => _tcp?.LocalEndPoint;

    /// <summary>The TCP side, for its connection count and buffer pool; null before <see cref="Start"/>.</summary>
    public StreamServer? Tcp => _tcp;

    /// <summary>UDP HELLOs answered so far.</summary>
    public long HandshakesAnswered => Interlocked.Read(ref _handshakesAnswered);

    /// <summary>
    /// The counters since <see cref="Start"/>, per transport, with what is known of loss: datagrams that carried no message
    /// and the kernel's drops on the UDP socket (read now). Still readable after <see cref="StopAsync"/>.
    /// </summary>
    public MessageTransportServerStatistics GetStatistics()
    {
        var udp = _udp?.GetStatistics();
        return new MessageTransportServerStatistics
        {
            UdpMessagesReceived = Interlocked.Read(ref _udpReceived),
            UdpMessagesSent = _udpHandler?.Peer.Sent ?? 0,
            UdpHandshakesAnswered = HandshakesAnswered,
            UdpDatagramsDropped = Interlocked.Read(ref _udpDropped),
            UdpKernelDrops = udp?.KernelDrops,
            UdpSendErrors = udp?.SendErrors ?? 0,
            TcpMessagesReceived = Interlocked.Read(ref _tcpReceived),
            TcpConnections = _tcp?.ConnectionCount ?? 0,
        };
    }

    /// <summary>Binds TCP and (unless disabled) UDP on one port number and starts serving.</summary>
    /// <exception cref="InvalidOperationException">Already started.</exception>
    /// <exception cref="SocketException">The port is in use or cannot be bound.</exception>
    public void Start()
    {
        if (_tcp is not null)
        {
            throw new InvalidOperationException("The server is already started.");
        }

        var tcpHandler = StreamHandler.Create((connection, message) =>
        {
            Interlocked.Increment(ref _tcpReceived);
            return _handler(connection, message);
        });
        for (var attempt = 1; ; attempt++)
        {
            _options.Tcp.EndPoint = _options.EndPoint;
            var tcp = new StreamServer(_options.Tcp, tcpHandler);
            tcp.Start();
            if (!_options.EnableUdp)
            {
                _tcp = tcp;
                return;
            }

            try
            {
                _udp = OpenUdp(tcp.LocalEndPoint!);
                _tcp = tcp;
                break;
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.AddressAlreadyInUse && _options.EndPoint.Port == 0 && attempt < PortAttempts)
            {
                tcp.Abandon();
            }
            catch
            {
                tcp.Abandon();
                throw;
            }
        }
    }

    /// <summary>Stops UDP at once and TCP gracefully (queued messages go out), and waits for both.</summary>
    /// <param name="cancellationToken">When it fires, TCP connections still closing are dropped at once.</param>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        if (_stopping.IsCancellationRequested)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_udp is not null)
        {
            await _udp.DisposeAsync().ConfigureAwait(false);
        }

        if (_tcp is not null)
        {
            await _tcp.StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Same as <see cref="StopAsync"/>.</summary>
    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        _stopping.Dispose();
    }

    private DatagramServer OpenUdp(IPEndPoint endPoint)
    {
        _udpHandler = new UdpHandler(this);
        var server = new DatagramServer(
            new DatagramServerOptions
            {
                EndPoint = endPoint,
                Workers = 1,
                BatchSize = _options.UdpBatchSize,
                // Message handlers are asynchronous; they run on the thread pool rather than block a thread of their own.
                IoModel = ServerIoModel.Async,
                // A datagram cut to the buffer is logged with its sender below rather than dropped unseen.
                DeliverTruncated = true,
                ReceiveBufferSize = _options.UdpReceiveBufferSize,
                SendBufferSize = _options.UdpSendBufferSize,
                Socket = { Logger = _logger },
            },
            _udpHandler,
            _logger);
        try
        {
            server.StartAsync().GetAwaiter().GetResult();
            return server;
        }
        catch
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
            throw;
        }
    }

    private async ValueTask HandleBatchAsync(DatagramContext context, UdpReplyPeer peer)
    {
        foreach (var datagram in context.Datagrams)
        {
            if (datagram.IsTruncated || datagram.Length == 0)
            {
                Interlocked.Increment(ref _udpDropped);
                TransportLog.Dropped(_logger, datagram.Source, datagram.IsTruncated ? "longer than 65,536 bytes" : "empty");
                continue;
            }

            peer.Begin(context, datagram.Source);
            if (datagram.Payload[0] == UdpEnvelope.Data)
            {
                Interlocked.Increment(ref _udpReceived);
                await HandleAsync(peer, datagram).ConfigureAwait(false);
            }
            else if (UdpEnvelope.TryReadHandshake(datagram.Payload, UdpEnvelope.Hello, out var nonce))
            {
                if (_options.AnswerHandshake)
                {
                    await peer.AnswerHelloAsync(nonce).ConfigureAwait(false);
                    Interlocked.Increment(ref _handshakesAnswered);
                }
            }
            else
            {
                Interlocked.Increment(ref _udpDropped);
                TransportLog.Dropped(_logger, datagram.Source, $"unknown datagram type 0x{datagram.Payload[0]:X2}");
            }
        }
    }

    private async ValueTask HandleAsync(UdpReplyPeer peer, ReceivedDatagram datagram)
    {
        try
        {
            await _handler(peer, new ReadOnlySequence<byte>(datagram.Memory[UdpEnvelope.HeaderLength..])).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            TransportLog.HandlerFailed(_logger, datagram.Source, e);
        }
    }

    /// <summary>The UDP side's handler: one reply peer for the server's one worker.</summary>
    private sealed class UdpHandler(MessageTransportServer server) : IAsyncDatagramHandler
    {
        public UdpReplyPeer Peer { get; } = new();

        public ValueTask HandleAsync(DatagramContext context) => server.HandleBatchAsync(context, Peer);
    }
}
