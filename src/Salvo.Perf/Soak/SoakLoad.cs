using System.Buffers;
using System.Net;
using Salvo.Server;
using Salvo.Streams;

namespace Salvo.Perf.Soak;

/// <summary>
/// The soak's mixed load, all on loopback and all bounded by one token: datagrams of varied sizes through
/// a <see cref="DatagramServer"/> echo, one request/response in flight at a time through the same server,
/// and TCP <see cref="StreamServer"/> connections that open, exchange a few messages and close.
/// </summary>
internal sealed class SoakLoad : IAsyncDisposable
{
    /// <summary>Datagram sizes cycled through: small, a typical MTU-sized one, and GSO/fragment-sized ones.</summary>
    private static readonly int[] Sizes = [64, 512, 1380, 4096, 16_384];

    private readonly DatagramServer _echo;
    private readonly StreamServer _streams;
    private readonly DatagramSocket _flood;
    private readonly DatagramSocket _requests;
    private readonly int _datagramsPerSecond;
    private readonly int _connectionsPerSecond;
    private long _sent;
    private long _echoed;
    private long _requestsCompleted;
    private long _requestsTimedOut;
    private long _connections;
    private long _connectionFailures;

    private SoakLoad(IPAddress address, DatagramServer echo, StreamServer streams, int datagramsPerSecond, int connectionsPerSecond)
    {
        _echo = echo;
        _streams = streams;
        _datagramsPerSecond = datagramsPerSecond;
        _connectionsPerSecond = connectionsPerSecond;
        _flood = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = new IPEndPoint(address, 0), ReceiveBufferSize = 4 << 20 });
        _requests = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = new IPEndPoint(address, 0) });
    }

    /// <summary>Starts the servers on ports of their own on <paramref name="address"/> (127.0.0.1 or ::1).</summary>
    public static async Task<SoakLoad> StartAsync(IPAddress address, int datagramsPerSecond, int connectionsPerSecond)
    {
        var echo = new DatagramServer(new DatagramServerOptions { EndPoint = new IPEndPoint(address, 0), Workers = 1, ReceiveBufferSize = 4 << 20 }, new EchoHandler());
        await echo.StartAsync().ConfigureAwait(false);
        var streams = new StreamServer(new StreamServerOptions { EndPoint = new IPEndPoint(address, 0) },
            StreamHandler.Create(static async (connection, message) => await connection.SendAsync(message.ToArray()).ConfigureAwait(false)));
        streams.Start();
        return new SoakLoad(address, echo, streams, datagramsPerSecond, connectionsPerSecond);
    }

    /// <summary>
    /// The counts so far. Echoes are read before sends, and a batch is counted as sent before it leaves: an echo can
    /// arrive while the rest of its batch is still being sent, and a sample once showed more echoed than sent
    /// (sent 17,963, echoed 17,968).
    /// </summary>
    public SoakTraffic Traffic
    {
        get
        {
            var echoed = Interlocked.Read(ref _echoed);
            return new(Interlocked.Read(ref _sent), echoed, Interlocked.Read(ref _requestsCompleted),
                Interlocked.Read(ref _requestsTimedOut), Interlocked.Read(ref _connections), Interlocked.Read(ref _connectionFailures));
        }
    }

    /// <summary>Runs every load until <paramref name="stop"/> is cancelled.</summary>
    public Task RunAsync(CancellationToken stop) => Task.WhenAll(
        Task.Factory.StartNew(() => SendDatagrams(stop), stop, TaskCreationOptions.LongRunning, TaskScheduler.Default),
        Task.Factory.StartNew(() => ReceiveEchoes(stop), stop, TaskCreationOptions.LongRunning, TaskScheduler.Default),
        RequestsAsync(stop),
        ConnectionsAsync(stop));

    public async ValueTask DisposeAsync()
    {
        _flood.Dispose();
        _requests.Dispose();
        await _streams.DisposeAsync().ConfigureAwait(false);
        await _echo.DisposeAsync().ConfigureAwait(false);
    }

    private void SendDatagrams(CancellationToken stop)
    {
        // Paced against the clock, woken every 10 ms: a modest, steady load that leaves the other core to the rest of the machine.
        var batch = new SendBatch(64, Sizes.Max());
        var target = DatagramAddress.FromIPEndPoint(_echo.LocalEndPoint);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long next = 0;
        while (!stop.IsCancellationRequested)
        {
            var due = (long)(clock.Elapsed.TotalSeconds * _datagramsPerSecond) - next;
            while (due > 0)
            {
                batch.Clear();
                for (; due > 0 && batch.TryAdd(Sizes[next % Sizes.Length], target, out var payload); due--, next++)
                {
                    payload.Fill((byte)next);
                }

                Interlocked.Add(ref _sent, batch.Count);
                var unsent = batch.Count - SendOrNone(batch);
                Interlocked.Add(ref _sent, -unsent);
            }

            stop.WaitHandle.WaitOne(10);
        }
    }

    /// <summary>Sends the batch; what a stop closed the socket under counts as not sent.</summary>
    private int SendOrNone(SendBatch batch)
    {
        try
        {
            return _flood.Send(batch);
        }
        catch (ObjectDisposedException)
        {
            return 0;
        }
    }

    private void ReceiveEchoes(CancellationToken stop)
    {
        var batch = new ReceiveBatch(64);
        var echoServer = DatagramAddress.FromIPEndPoint(_echo.LocalEndPoint);
        try
        {
            while (!stop.IsCancellationRequested)
            {
                var received = _flood.Receive(batch, TimeSpan.FromMilliseconds(100));
                var echoes = 0;
                for (var i = 0; i < received; i++)
                {
                    // Anything else on loopback may send to this port; only the echo server's datagrams are echoes.
                    echoes += batch[i].Source.Equals(echoServer) ? 1 : 0;
                }

                Interlocked.Add(ref _echoed, echoes);
            }
        }
        catch (ObjectDisposedException)
        {
            // Stopping.
        }
    }

    private async Task RequestsAsync(CancellationToken stop)
    {
        var request = new byte[256];
        var reply = new byte[2048];
        var target = DatagramAddress.FromIPEndPoint(_echo.LocalEndPoint);
        try
        {
            while (!stop.IsCancellationRequested)
            {
                await _requests.SendToAsync(request, target, stop).ConfigureAwait(false);
                using var timeout = CancellationTokenSource.CreateLinkedTokenSource(stop);
                timeout.CancelAfter(TimeSpan.FromSeconds(1));
                try
                {
                    await _requests.ReceiveFromAsync(reply, timeout.Token).ConfigureAwait(false);
                    Interlocked.Increment(ref _requestsCompleted);
                }
                catch (OperationCanceledException) when (!stop.IsCancellationRequested)
                {
                    Interlocked.Increment(ref _requestsTimedOut);
                }

                await Task.Delay(10, stop).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            // Stopping.
        }
    }

    private async Task ConnectionsAsync(CancellationToken stop)
    {
        var message = new byte[1024];
        var pause = TimeSpan.FromSeconds(1.0 / _connectionsPerSecond);
        try
        {
            while (!stop.IsCancellationRequested)
            {
                var replies = new SemaphoreSlim(0);
                var client = new StreamClient(null, StreamHandler.Create((_, _) =>
                {
                    replies.Release();
                    return ValueTask.CompletedTask;
                }));
                await using (client.ConfigureAwait(false))
                {
                    try
                    {
                        var connection = await client.ConnectAsync(_streams.LocalEndPoint!, cancellationToken: stop).ConfigureAwait(false);
                        for (var i = 0; i < 4; i++)
                        {
                            await connection.SendAsync(message, stop).ConfigureAwait(false);
                            if (!await replies.WaitAsync(TimeSpan.FromSeconds(5), stop).ConfigureAwait(false))
                            {
                                throw new TimeoutException("no echo on the TCP connection within 5 s");
                            }
                        }

                        await connection.CloseAsync().ConfigureAwait(false);
                        Interlocked.Increment(ref _connections);
                    }
                    catch (Exception e) when (e is TimeoutException or IOException or System.Net.Sockets.SocketException && !stop.IsCancellationRequested)
                    {
                        Interlocked.Increment(ref _connectionFailures);
                    }
                    finally
                    {
                        replies.Dispose();
                    }
                }

                await Task.Delay(pause, stop).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            // Stopping.
        }
    }
}

/// <summary>What the soak's load did.</summary>
/// <param name="DatagramsSent">Datagrams sent to the echo server.</param>
/// <param name="DatagramsEchoed">Echoes received back.</param>
/// <param name="Requests">Request/response exchanges completed.</param>
/// <param name="RequestTimeouts">Requests without an answer within 1 s.</param>
/// <param name="Connections">TCP connections opened, used and closed.</param>
/// <param name="ConnectionFailures">TCP connections that failed.</param>
internal sealed record SoakTraffic(long DatagramsSent, long DatagramsEchoed, long Requests, long RequestTimeouts, long Connections, long ConnectionFailures);
