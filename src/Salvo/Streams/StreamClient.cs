using System.Net;
using System.Net.Sockets;
using Salvo.Buffers;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo.Streams;

/// <summary>
/// Opens framed TCP connections that share one set of options, one buffer pool, one handler and one timeout
/// timer, so that a load generator can hold many thousands of them cheaply.
/// </summary>
public sealed class StreamClient : IAsyncDisposable
{
    private readonly StreamHost _host;
    private readonly TimeSpan _connectTimeout;
    private int _disposed;

    /// <summary>Creates a client.</summary>
    /// <param name="options">Connection settings. Defaults to <see cref="StreamClientOptions"/>' defaults.</param>
    /// <param name="handler">Receives the messages of every connection. Defaults to <see cref="StreamHandler.Ignore"/>.</param>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public StreamClient(StreamClientOptions? options = null, IStreamHandler? handler = null)
    {
        options ??= new StreamClientOptions();
        _host = new StreamHost(options, handler ?? StreamHandler.Ignore);
        _connectTimeout = options.ConnectTimeout;
    }

    /// <summary>Connections open now.</summary>
    public int ConnectionCount => _host.ConnectionCount;

    /// <summary>The open connections (a live view: connections opened or closed while enumerating may or may not appear), for pushing to all of them.</summary>
    public IEnumerable<StreamConnection> Connections => _host.Connections;

    /// <summary>The pool the connections' pipes rent from.</summary>
    public PinnedBufferPool BufferPool => _host.Pool;

    /// <summary>Connects to <paramref name="remote"/> and starts the connection.</summary>
    /// <param name="remote">The server.</param>
    /// <param name="local">Where to bind first (for example one of several loopback addresses, to go past one address's ephemeral ports); null binds any.</param>
    /// <param name="cancellationToken">Cancels the connect.</param>
    /// <exception cref="ArgumentNullException"><paramref name="remote"/> is null.</exception>
    /// <exception cref="SocketException">The connect failed (refused, unreachable).</exception>
    /// <exception cref="TimeoutException">The connect took longer than <see cref="StreamClientOptions.ConnectTimeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
    public async Task<StreamConnection> ConnectAsync(IPEndPoint remote, IPEndPoint? local = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(remote);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) == 1, this);
        var socket = new Socket(remote.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            _host.Configure(socket);
            _host.ConfigureSocket?.Invoke(socket);
            if (local is not null)
            {
                if (local.Port == 0)
                {
                    // Tens of thousands of clients bound to one source address run out of ports early otherwise.
                    Platform.Current.DeferPortToConnect(socket);
                }

                NamedBind.Bind(socket, local);
            }

            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(_connectTimeout);
            try
            {
                await socket.ConnectAsync(remote, timeout.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException($"Connecting to {remote} took longer than ConnectTimeout ({_connectTimeout}).");
            }
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        var connection = new StreamConnection(_host, socket);
        connection.Start();
        return connection;
    }

    /// <summary>Closes every connection gracefully and waits for them.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        await _host.CloseAllAsync(CancellationToken.None).ConfigureAwait(false);
        _host.Dispose();
    }
}
