using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Salvo.Server;

namespace Salvo.Perf.TestServer.Echo;

/// <summary>
/// RFC 862 echo on one port number: UDP through a <see cref="DatagramServer"/> with the library's
/// <see cref="EchoHandler"/> (each worker's echoes leave in one batched send), TCP beside it, one task per
/// connection. Every echo is exactly what arrived, so the service never sends more than it receives; the
/// rate limit guards against reflection.
/// </summary>
internal sealed class EchoService : IAsyncDisposable
{
    /// <summary>TCP connections served at once; one more is closed at once and counted (bounds memory at 64 KiB each).</summary>
    public const int MaxTcpConnections = 1024;

    private readonly DatagramServer _udp;
    private readonly EchoHandler _handler;
    private readonly Socket _listener;
    private readonly StrongBox<long> _tcpBytes = new();
    private long _tcpConnections;
    private long _tcpRefused;
    private int _tcpOpen;

    private EchoService(DatagramServer udp, EchoHandler handler, Socket listener)
    {
        _udp = udp;
        _handler = handler;
        _listener = listener;
    }

    /// <summary>Where it listens (UDP and TCP share the port number).</summary>
    public IPEndPoint LocalEndPoint => _udp.LocalEndPoint;

    /// <summary>Workers receiving UDP.</summary>
    public int Workers => _udp.WorkerCount;

    /// <summary>The backend the UDP sockets report they use.</summary>
    public DatagramBackend Backend => _udp.Backend;

    /// <summary>Frames the UDP sockets took off the wire and dropped since they opened, by reason; all zero unless the backend is AF_XDP.</summary>
    public FrameDropCounts FrameDrops => _udp.GetStatistics().MalformedFramesByReason;

    /// <summary>
    /// Binds UDP, then TCP on the same port number. With port 0 the ephemeral UDP port may be taken for TCP,
    /// so a few fresh ports are tried.
    /// </summary>
    /// <exception cref="SocketException">The address or port cannot be bound.</exception>
    public static async Task<EchoService> StartAsync(IPAddress address, int port, int workers, EchoSettings settings)
    {
        for (var attempt = 1; ; attempt++)
        {
            var handler = new EchoHandler(new EchoOptions { MaxDatagramsPerSecondPerSource = settings.RatePerSource });
            var udp = new DatagramServer(
                new DatagramServerOptions
                {
                    EndPoint = new IPEndPoint(address, port),
                    Backend = settings.Backend,
                    Workers = workers,
                    ReceiveBufferSize = 4 << 20,
                    SendBufferSize = 4 << 20,
                },
                handler);
            await udp.StartAsync().ConfigureAwait(false);
            var listener = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                if (address.AddressFamily == AddressFamily.InterNetworkV6)
                {
                    // As the UDP side (DatagramServerOptions.DualMode): -B :: serves IPv4 clients too.
                    listener.DualMode = true;
                }

                listener.Bind(new IPEndPoint(address, udp.LocalEndPoint.Port));
                listener.Listen(64);
                return new EchoService(udp, handler, listener);
            }
            catch (SocketException e) when (port == 0 && attempt < 10 && e.SocketErrorCode == SocketError.AddressAlreadyInUse)
            {
                listener.Dispose();
                await udp.DisposeAsync().ConfigureAwait(false);
            }
            catch
            {
                listener.Dispose();
                await udp.DisposeAsync().ConfigureAwait(false);
                throw;
            }
        }
    }

    /// <summary>Accepts TCP clients until <paramref name="cancellationToken"/> is cancelled.</summary>
    public async Task ServeTcpAsync(CancellationToken cancellationToken)
    {
        var connections = new List<Task>();
        try
        {
            while (true)
            {
                var socket = await _listener.AcceptAsync(cancellationToken).ConfigureAwait(false);
                Interlocked.Increment(ref _tcpConnections);
                connections.RemoveAll(t => t.IsCompleted);
                if (Interlocked.Increment(ref _tcpOpen) > MaxTcpConnections)
                {
                    Interlocked.Decrement(ref _tcpOpen);
                    Interlocked.Increment(ref _tcpRefused);
                    socket.Dispose();
                    continue;
                }

                connections.Add(ServeOneAsync(socket, cancellationToken));
            }
        }
        catch (OperationCanceledException)
        {
            // Stopping.
        }

        await Task.WhenAll(connections).ConfigureAwait(false);
    }

    /// <summary>The counts so far.</summary>
    public EchoTotals Snapshot() => EchoTotals.From(_udp.GetStatistics(), _handler.RateLimited, Interlocked.Read(ref _tcpConnections),
        Interlocked.Read(ref _tcpRefused), Interlocked.Read(ref _tcpBytes.Value));

    public async ValueTask DisposeAsync()
    {
        _listener.Dispose();
        await _udp.DisposeAsync().ConfigureAwait(false);
    }

    private async Task ServeOneAsync(Socket socket, CancellationToken cancellationToken)
    {
        try
        {
            await Task.Yield();
            await TcpEchoConnection.ServeAsync(socket, _tcpBytes, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            Interlocked.Decrement(ref _tcpOpen);
        }
    }
}
