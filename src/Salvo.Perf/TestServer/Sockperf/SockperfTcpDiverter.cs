using System.Diagnostics;
using System.Net.Sockets;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// Accepts on <c>salvo server</c>'s TCP port, in a loop that outlives any one failed accept, and looks at each
/// connection's first bytes (MSG_PEEK, so nothing is consumed) on the connection's own task: a sockperf client is
/// served there, anything else is handed, untouched, to the control handler with what its first byte says it is
/// (Salvo, iperf3, or silent), so that the handler neither peeks again nor waits a second time for a peer that
/// sends nothing. Sorting per connection matters because a sockperf 3.7 TCP client connects and then waits 2 s
/// before its first message (seen on the wire), which must not hold up the next client. At most
/// <see cref="ServerLimits.MaxPending"/> connections are sorted or in their handshake at once. One more takes the
/// place of the oldest that has sent nothing yet, which is closed, counted and logged: 1,024 silent connections used
/// to refuse every client for the sort timeout (stock iperf3's server failed with 3,000 open), where a working client
/// sends at once and should be served at once. When every connection waiting has sent something, the new one is closed.
/// </summary>
internal sealed class SockperfTcpDiverter : IDisposable
{
    /// <summary>Between peeks while fewer than a header's bytes have arrived.</summary>
    private static readonly TimeSpan PeekRetry = TimeSpan.FromMilliseconds(10);

    /// <summary>After an accept fails (EMFILE when the descriptors run out): the connections waiting in the backlog are not lost, only delayed.</summary>
    private static readonly TimeSpan AcceptRetry = TimeSpan.FromMilliseconds(100);

    private readonly Socket _listener;
    private readonly SockperfService _service;
    private readonly ServerLimits _limits;
    private readonly ServerTally _tally;
    private readonly Func<Socket, ControlClientKind, CancellationToken, Task> _control;
    private readonly ThrottledNote _overLimit;
    private readonly ThrottledNote _acceptFailed;
    private readonly CancellationTokenSource _stop;
    private readonly HashSet<Task> _connections = [];
    private readonly Lock _lock = new();
    private readonly Task _acceptLoop;

    /// <summary>Connections that have sent nothing yet, oldest first: the ones a new connection over the cap replaces.</summary>
    private readonly LinkedList<Unsorted> _unsorted = [];
    private int _pending;

    /// <param name="listener">The listening TCP socket.</param>
    /// <param name="service">Serves the sockperf connections.</param>
    /// <param name="limits">The sorting time and the cap on connections waiting.</param>
    /// <param name="tally">Counts the connections closed over the cap.</param>
    /// <param name="control">Takes every other connection, through its handshake; the connection counts as waiting until it returns.</param>
    /// <param name="console">Where refusals are logged.</param>
    /// <param name="cancellationToken">Stops accepting and every connection still being sorted or served.</param>
    public SockperfTcpDiverter(Socket listener, SockperfService service, ServerLimits limits, ServerTally tally,
        Func<Socket, ControlClientKind, CancellationToken, Task> control, CliConsole console, CancellationToken cancellationToken)
    {
        _listener = listener;
        _service = service;
        _limits = limits;
        _tally = tally;
        _control = control;
        _overLimit = new ThrottledNote(console, TimeSpan.FromSeconds(1));
        _acceptFailed = new ThrottledNote(console, TimeSpan.FromSeconds(1));
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _acceptLoop = Task.Run(AcceptLoopAsync, CancellationToken.None);
    }

    /// <summary>Stops accepting and waits (at most 5 s) for every connection's task, so each client gets its last word.</summary>
    public void Dispose()
    {
        _stop.Cancel();
        _acceptLoop.Wait(TimeSpan.FromSeconds(5));
        Task[] connections;
        lock (_lock)
        {
            connections = [.. _connections];
        }

        Task.WaitAll(connections, TimeSpan.FromSeconds(5));
        _stop.Dispose();
    }

    private async Task AcceptLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
            {
                return;
            }
            catch (SocketException e)
            {
                _acceptFailed.Write($"salvo server: accepting a TCP connection failed: {e.Message} ({e.SocketErrorCode}); trying again");
                await Task.Delay(AcceptRetry, CancellationToken.None).ConfigureAwait(false);
                continue;
            }

            if (Interlocked.Increment(ref _pending) > _limits.MaxPending && !EvictOldestSilent())
            {
                Interlocked.Decrement(ref _pending);
                _tally.Refused(ServerTally.Refusal.OverLimit);
                _overLimit.Write($"salvo server: refused {socket.RemoteEndPoint}: {_limits.MaxPending:N0} connections are waiting for their first message or handshake; closed at once");
                socket.Dispose();
                continue;
            }

            Track(Task.Run(() => HandOnAsync(socket), CancellationToken.None));
        }
    }

    private void Track(Task connection)
    {
        lock (_lock)
        {
            _connections.Add(connection);
        }

        connection.ContinueWith(
            t =>
            {
                lock (_lock)
                {
                    _connections.Remove(t);
                }
            },
            CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }

    /// <summary>Closes the oldest connection that has sent nothing; false when every waiting one has sent something.</summary>
    private bool EvictOldestSilent()
    {
        Unsorted oldest;
        lock (_lock)
        {
            if (_unsorted.First is not { } first)
            {
                return false;
            }

            oldest = first.Value;
            _unsorted.RemoveFirst();
            oldest.Node = null;
        }

        // Its sort ends at once and gives its place (and its count in _pending) back; the new connection has it now.
        oldest.Evict();
        _tally.Refused(ServerTally.Refusal.OverLimit);
        _overLimit.Write($"salvo server: closed {oldest.Remote}, silent for {oldest.Age.TotalSeconds:F1} s: {_limits.MaxPending:N0} connections are waiting for their first message or handshake, and the oldest silent one gives way to a new one");
        return true;
    }

    private async Task HandOnAsync(Socket socket)
    {
        var pending = true;
        using var unsorted = new Unsorted(socket, _stop.Token);
        lock (_lock)
        {
            unsorted.Node = _unsorted.AddLast(unsorted);
        }

        try
        {
            ControlClientKind? kind;
            try
            {
                kind = await SortAsync(socket, _limits.SortTimeout, unsorted.Token).ConfigureAwait(false);
            }
            finally
            {
                lock (_lock)
                {
                    if (unsorted.Node is { } node)
                    {
                        _unsorted.Remove(node);
                        unsorted.Node = null;
                    }
                }
            }

            if (unsorted.Evicted)
            {
                socket.Dispose();
                return;
            }

            if (kind is null)
            {
                Interlocked.Decrement(ref _pending);
                pending = false;
                await SockperfTcpConnection.ServeAsync(socket, _service, _stop.Token).ConfigureAwait(false);
                return;
            }

            await _control(socket, kind!.Value, _stop.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
        {
            socket.Dispose();
        }
        finally
        {
            if (pending)
            {
                Interlocked.Decrement(ref _pending);
            }
        }
    }

    /// <summary>A connection being sorted: its place in <see cref="_unsorted"/>, and the token that evicts it.</summary>
    private sealed class Unsorted : IDisposable
    {
        private readonly CancellationTokenSource _evict;
        private readonly long _since = Stopwatch.GetTimestamp();

        public Unsorted(Socket socket, CancellationToken stop)
        {
            _evict = CancellationTokenSource.CreateLinkedTokenSource(stop);
            Remote = socket.RemoteEndPoint;
        }

        public System.Net.EndPoint? Remote { get; }

        public LinkedListNode<Unsorted>? Node { get; set; }

        public CancellationToken Token => _evict.Token;

        public bool Evicted { get; private set; }

        public TimeSpan Age => Stopwatch.GetElapsedTime(_since);

        public void Evict()
        {
            Evicted = true;
            try
            {
                _evict.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // Its sort ended on its own between being taken off the list and this: nothing is left to stop.
            }
        }

        public void Dispose() => _evict.Dispose();
    }

    /// <summary>Null for a sockperf client, else who opened the connection.</summary>
    private static async Task<ControlClientKind?> SortAsync(Socket socket, TimeSpan timeout, CancellationToken stop)
    {
        var first = new byte[SockperfHeader.Size];
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(stop);
        deadline.CancelAfter(timeout);
        try
        {
            while (true)
            {
                var peeked = await socket.ReceiveAsync(first, SocketFlags.Peek, deadline.Token).ConfigureAwait(false);
                switch (SockperfServerRules.Sniff(first.AsSpan(0, peeked)))
                {
                    case SockperfSniff.Sockperf:
                        return null;
                    case SockperfSniff.Other:
                        return Iperf3.Iperf3Cookie.CanStart(first[0]) ? ControlClientKind.Iperf3 : ControlClientKind.Salvo;
                }

                if (peeked == 0)
                {
                    // Closed before a byte: the control handler reads the end of the stream at once and says so.
                    return ControlClientKind.Salvo;
                }

                await Task.Delay(PeekRetry, deadline.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (!stop.IsCancellationRequested)
        {
            return ControlClientKind.Silent;
        }
    }
}
