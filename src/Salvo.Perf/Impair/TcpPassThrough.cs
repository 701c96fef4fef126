using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Impair;

/// <summary>
/// Passes TCP connections from the relay's listen address to the forward address untouched, so that a
/// test tool's control connection (salvo client's, on the same port number as its UDP data) reaches the
/// server while the datagrams go through the impairments.
/// </summary>
internal sealed class TcpPassThrough : IAsyncDisposable
{
    private readonly Socket _listener;
    private readonly IPEndPoint _forward;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _pumps = [];
    private readonly Lock _lock = new();
    private Task _accepting = Task.CompletedTask;
    private long _connections;

    /// <exception cref="SocketException">The listen address cannot be bound.</exception>
    public TcpPassThrough(IPEndPoint listen, IPEndPoint forward)
    {
        _forward = forward;
        _listener = TcpListeners.Create(listen);
        try
        {
            _listener.Bind(listen);
            _listener.Listen(16);
        }
        catch
        {
            _listener.Dispose();
            throw;
        }
    }

    /// <summary>Connections passed through so far.</summary>
    public long Connections => Interlocked.Read(ref _connections);

    /// <summary>Starts accepting.</summary>
    public void Start() => _accepting = AcceptAsync();

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        _listener.Dispose();
        await _accepting.ConfigureAwait(false);
        Task[] pumps;
        lock (_lock)
        {
            pumps = [.. _pumps];
        }

        await Task.WhenAll(pumps).ConfigureAwait(false);
        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                var client = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
                Interlocked.Increment(ref _connections);
                lock (_lock)
                {
                    _pumps.RemoveAll(p => p.IsCompleted);
                    _pumps.Add(PassAsync(client));
                }
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
        {
            // Stopping.
        }
    }

    private async Task PassAsync(Socket client)
    {
        using var server = new Socket(_forward.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        using (client)
        {
            try
            {
                await server.ConnectAsync(_forward, _stop.Token).ConfigureAwait(false);
                await using var a = new NetworkStream(client, ownsSocket: false);
                await using var b = new NetworkStream(server, ownsSocket: false);
                using var either = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);

                // When one side closes, the other is closed too: a half-open relay would keep a dead test alive.
                await Task.WhenAny(Pump(a, b, either), Pump(b, a, either)).ConfigureAwait(false);
                await either.CancelAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or IOException or ObjectDisposedException)
            {
                // One side went away; both are closed below.
            }
        }
    }

    private static async Task Pump(Stream from, Stream to, CancellationTokenSource either)
    {
        try
        {
            await from.CopyToAsync(to, either.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or IOException or ObjectDisposedException)
        {
            // Ended by the other direction or by a reset.
        }
    }
}
