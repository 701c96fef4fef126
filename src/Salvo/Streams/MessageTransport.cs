using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Salvo.Streams;

/// <summary>
/// Sends and receives messages with one server over UDP (one message per datagram) or framed TCP, behind one API.
/// In <see cref="TransportMode.UdpFirst"/> it proves UDP works with a handshake and falls back to TCP when no
/// answer comes within <see cref="MessageTransportOptions.HandshakeTimeout"/>; from TCP it probes UDP again on a
/// back-off schedule and moves back when a probe is answered (<see cref="MessageTransportOptions.UdpReprobe"/>), and
/// from UDP it moves to TCP when keepalives go unanswered (<see cref="MessageTransportOptions.UdpKeepaliveMisses"/>).
/// <see cref="Transport"/> and <see cref="TransportSelected"/> say which one is in use. Pair it with a
/// <see cref="MessageTransportServer"/>.
/// </summary>
/// <remarks>
/// <para>Over UDP a message is at most 65,506 bytes (keep it under the path MTU, about 1,400 bytes, to avoid IP
/// fragmentation) and may be lost, duplicated or reordered: the transport adds no acknowledgement and no retransmission,
/// and <see cref="SendAsync"/> returning true means only that the socket took the datagram. What is known of loss is
/// counted in <see cref="GetStatistics"/> (the kernel's drops on this end's socket) and in the server's
/// <see cref="MessageTransportServer.GetStatistics"/>; number the messages to find the rest. Over TCP a message is
/// delivered in order or the connection closes, which <see cref="TcpConnectionClosed"/> reports at once; the transport
/// then opens it again (<see cref="MessageTransportOptions.TcpReconnect"/>), and messages queued on the closed connection
/// and not yet delivered are lost with it.</para>
/// </remarks>
public sealed partial class MessageTransport : IMessagePeer, IAsyncDisposable
{
    private readonly MessageTransportOptions _options;
    private readonly MessageHandler _handler;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stopping = new();
    private DatagramSocket? _udp;
    private Task _udpLoop = Task.CompletedTask;
    private StreamClient? _tcpClient;
    private volatile StreamConnection? _tcp;
    private Task _paths = Task.CompletedTask;
    private Task _tcpWatch = Task.CompletedTask;
    private ulong _lastHelloAck;
    private volatile TransportKind _transport;
    private long _transportSwitches;
    private int _disposed;

    /// <summary>Creates a transport; <see cref="ConnectAsync"/> picks the transport.</summary>
    /// <exception cref="ArgumentNullException">An argument is null.</exception>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public MessageTransport(MessageTransportOptions options, MessageHandler handler)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        options.Validate();
        _options = options;
        _handler = handler;
        _logger = options.Logger ?? NullLogger.Instance;
    }

    /// <summary>
    /// Raised by <see cref="ConnectAsync"/> when the transport is chosen, and again, on a timer's thread, each time traffic
    /// moves to the other path.
    /// </summary>
    public event EventHandler<TransportSelectedEventArgs>? TransportSelected;

    /// <summary>The transport new messages go over; <see cref="TransportKind.None"/> before <see cref="ConnectAsync"/>.</summary>
    public TransportKind Transport => _transport;

    /// <summary>How many times traffic moved from one transport to another after <see cref="ConnectAsync"/> chose the first.</summary>
    public long TransportSwitches => Interlocked.Read(ref _transportSwitches);

    /// <summary>The server's address; null before <see cref="ConnectAsync"/>.</summary>
    public EndPoint? RemoteEndPoint { get; private set; }

    /// <summary>
    /// The TCP connection when <see cref="Transport"/> is TCP, for its queue and close state; else null. While the
    /// transport reconnects, the connection that closed (<see cref="StreamConnection.IsOpen"/> false).
    /// </summary>
    public StreamConnection? TcpConnection => Transport == TransportKind.Tcp ? _tcp : null;

    /// <summary>Chooses the transport per <see cref="MessageTransportOptions.Mode"/> and starts receiving.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="remote"/> is null.</exception>
    /// <exception cref="InvalidOperationException">Already connected.</exception>
    /// <exception cref="SocketException">
    /// TCP was needed and its connect failed; after a UDP handshake that failed, the message says what each attempt got.
    /// </exception>
    /// <exception cref="TimeoutException">The TCP connect took longer than <see cref="StreamClientOptions.ConnectTimeout"/>; same message rule.</exception>
    public async Task ConnectAsync(IPEndPoint remote, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(remote);
        if (Transport != TransportKind.None)
        {
            throw new InvalidOperationException($"The transport is already connected over {Transport}.");
        }

        RemoteEndPoint = remote;
        if (_options.Mode == TransportMode.TcpOnly)
        {
            await ConnectTcpAsync(remote, "mode is TcpOnly", switching: false, cancellationToken).ConfigureAwait(false);
            return;
        }

        var (socket, batch, failure) = await OpenUdpAsync(remote, handshake: _options.Mode == TransportMode.UdpFirst, cancellationToken).ConfigureAwait(false);
        if (socket is not null)
        {
            UseUdp(socket, batch, _options.Mode == TransportMode.UdpOnly ? "mode is UdpOnly" : "the server answered the UDP handshake", switching: false);
        }
        else
        {
            await ConnectTcpAfterUdpAsync(remote, failure!, cancellationToken).ConfigureAwait(false);
        }

        StartPathSwitching(remote);
    }

    private async Task ConnectTcpAfterUdpAsync(IPEndPoint remote, string failure, CancellationToken cancellationToken)
    {
        try
        {
            await ConnectTcpAsync(remote, failure, switching: false, cancellationToken).ConfigureAwait(false);
        }
        catch (SocketException e)
        {
            // The TCP error alone ("Connection refused") hides that UDP was tried first and why it was given up.
            throw new SocketException((int)e.SocketErrorCode, $"UDP was tried first: {failure}; then TCP: {e.Message}");
        }
        catch (TimeoutException e)
        {
            throw new TimeoutException($"UDP was tried first: {failure}; then TCP: {e.Message}", e);
        }
    }

    /// <summary>Sends one message over the transport in use.</summary>
    /// <returns>
    /// True when handed to the UDP socket (not a delivery receipt: see the remarks) or queued on the TCP connection; false
    /// when the message was not taken: the UDP peer is unreachable, or the TCP connection closed (and is being opened again,
    /// see <see cref="TcpConnectionClosed"/>). Counted in <see cref="GetStatistics"/> either way.
    /// </returns>
    /// <exception cref="InvalidOperationException">Not connected.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The message is too long for the transport in use.</exception>
    public ValueTask<bool> SendAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken = default) => Transport switch
    {
        TransportKind.Tcp => Counted(TransportKind.Tcp, _tcp!.SendAsync(message, cancellationToken)),
        TransportKind.Udp => SendUdpAsync(message, cancellationToken),
        _ => throw new InvalidOperationException("Call ConnectAsync first."),
    };

    /// <summary>Closes the transport: a TCP connection closes gracefully; the UDP socket closes at once.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        await _paths.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        if (_udp is { } udp)
        {
            RetireUdp(udp);
        }

        await _udpLoop.ConfigureAwait(false);
        await CloseTcpAsync().ConfigureAwait(false);
        await _tcpWatch.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);

        _stopping.Dispose();
    }

    private async Task ConnectTcpAsync(IPEndPoint remote, string reason, bool switching, CancellationToken cancellationToken)
    {
        var client = new StreamClient(_options.Tcp, StreamHandler.Create((_, message) =>
        {
            _counters.OnTcpReceived();
            return _handler(this, message);
        }));
        StreamConnection connection;
        try
        {
            connection = await client.ConnectAsync(remote, cancellationToken: cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await client.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        _tcp = connection;
        _tcpClient = client;
        Select(TransportKind.Tcp, reason, switching);
        _tcpWatch = KeepTcpAsync(client, connection, remote);
    }

    /// <summary>Opens a UDP socket connected to the server; with <paramref name="handshake"/>, keeps it only when a HELLO is answered.</summary>
    private async Task<(DatagramSocket? Socket, ReceiveBatch Batch, string? Failure)> OpenUdpAsync(
        IPEndPoint remote, bool handshake, CancellationToken cancellationToken)
    {
        var socket = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(remote.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any, 0),
            ReceiveBufferSize = _options.UdpReceiveBufferSize,
            SendBufferSize = _options.UdpSendBufferSize,
            Logger = _options.Logger,
        });
        var batch = new ReceiveBatch(capacity: 8);
        string? failure;
        try
        {
            socket.Connect(remote);
            failure = handshake
                ? await UdpHandshake.RunAsync(socket, batch, _options.HandshakeTimeout, _options.HandshakeAttempts, cancellationToken).ConfigureAwait(false)
                : null;
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        if (failure is not null)
        {
            socket.Dispose();
            return (null, batch, failure);
        }

        return (socket, batch, null);
    }

    private void UseUdp(DatagramSocket socket, ReceiveBatch batch, string reason, bool switching)
    {
        NoteUdpDropsReadable(socket);
        _udp = socket;
        _udpLoop = ReceiveUdpAsync(socket, batch);
        Select(TransportKind.Udp, reason, switching);
    }

    /// <summary>Closes the TCP connection gracefully (queued messages go out) once, whoever asks first.</summary>
    private async Task CloseTcpAsync()
    {
        var client = Interlocked.Exchange(ref _tcpClient, null);
        if (client is not null)
        {
            await client.DisposeAsync().ConfigureAwait(false);
        }
    }

    private void Select(TransportKind transport, string reason, bool switching)
    {
        if (switching)
        {
            Interlocked.Increment(ref _transportSwitches);
        }

        _transport = transport;
        TransportLog.Selected(_logger, RemoteEndPoint!, transport, reason);
        try
        {
            TransportSelected?.Invoke(this, new TransportSelectedEventArgs(transport, reason));
        }
        catch (Exception e) when (switching)
        {
            // A switch runs on the transport's own schedule with no caller to hand the exception to; one faulty
            // handler must not stop every later switch. At connect time the exception fails ConnectAsync instead.
            TransportLog.SelectedHandlerFailed(_logger, RemoteEndPoint!, transport, e);
        }
    }

    private async ValueTask<bool> SendUdpAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken)
    {
        UdpEnvelope.CheckMessageLength(message.Length);

        var datagram = ArrayPool<byte>.Shared.Rent(message.Length + UdpEnvelope.HeaderLength);
        try
        {
            datagram[0] = UdpEnvelope.Data;
            message.Span.CopyTo(datagram.AsSpan(UdpEnvelope.HeaderLength));
            await _udp!.SendAsync(datagram.AsMemory(0, message.Length + UdpEnvelope.HeaderLength), cancellationToken).ConfigureAwait(false);
            _counters.OnSent(TransportKind.Udp, taken: true);
            return true;
        }
        catch (SocketException)
        {
            // Port unreachable or the kernel refused the datagram: counted in the socket's statistics.
            _counters.OnSent(TransportKind.Udp, taken: false);
            return false;
        }
        catch (ObjectDisposedException) when (Volatile.Read(ref _disposed) == 0 && Transport == TransportKind.Tcp)
        {
            // A send that chose UDP just before a move to TCP and reached the old socket after its grace period:
            // the transport is still open, so the message goes the way new messages go.
            return await Counted(TransportKind.Tcp, _tcp!.SendAsync(message, cancellationToken)).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(datagram);
        }
    }

    private async Task ReceiveUdpAsync(DatagramSocket socket, ReceiveBatch batch)
    {
        try
        {
            while (true)
            {
                await socket.ReceiveAsync(batch, _stopping.Token).ConfigureAwait(false);
                foreach (var datagram in batch)
                {
                    if (datagram.IsTruncated || datagram.Length == 0)
                    {
                        _counters.OnUdpDropped();
                        TransportLog.Dropped(_logger, datagram.Source, datagram.IsTruncated ? "longer than its buffer" : "empty");
                        continue;
                    }

                    if (datagram.Payload[0] != UdpEnvelope.Data)
                    {
                        // A HELLO-ACK answers a keepalive (or a resent handshake HELLO); anything else is not ours.
                        if (UdpEnvelope.TryReadHandshake(datagram.Payload, UdpEnvelope.HelloAck, out var nonce))
                        {
                            NoteHelloAck(nonce);
                        }
                        else
                        {
                            _counters.OnUdpDropped();
                            TransportLog.Dropped(_logger, datagram.Source, $"unknown datagram type 0x{datagram.Payload[0]:X2}");
                        }

                        continue;
                    }

                    _counters.OnUdpReceived();
                    try
                    {
                        await _handler(this, new ReadOnlySequence<byte>(datagram.Memory[UdpEnvelope.HeaderLength..])).ConfigureAwait(false);
                    }
                    catch (Exception e)
                    {
                        TransportLog.HandlerFailed(_logger, datagram.Source, e);
                    }
                }
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            // Disposed.
        }
    }
}
