using System.Diagnostics;
using Salvo.Perf.Protocol;
using Salvo.Perf.Threading;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// Receives one iperf3 stream on its connected socket, on its own thread, in batches, into an
/// <see cref="Iperf3StreamCounter"/>: the client's side of a reverse test against a stock server.
/// </summary>
internal sealed class Iperf3StreamReceiver : IDisposable
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(50);

    private readonly DatagramSocket _socket;
    private readonly Thread _thread;
    private volatile bool _stopWhenIdle;
    private volatile bool _stopped;

    /// <summary>The backend the stream's socket reports it uses.</summary>
    public DatagramBackend Backend => _socket.Backend;

    public Iperf3StreamReceiver(DatagramSocket socket, int id, bool counters64)
    {
        _socket = socket;
        Counter = new Iperf3StreamCounter(id, counters64);
        _thread = new Thread(Run) { Name = $"salvo-iperf3-recv-{id}", IsBackground = true };
    }

    /// <summary>The stream's counts (racy while datagrams arrive; exact after <see cref="StopAllWhenIdle"/>).</summary>
    public Iperf3StreamCounter Counter { get; }

    /// <summary>Starts receiving.</summary>
    public void Start() => _thread.Start();

    /// <summary>
    /// Has every stream read what is still queued and stop at its first quiet <see cref="Poll"/>, all within one
    /// <paramref name="limit"/>: every stream is told first, so with -P 128 they drain together, not in turn.
    /// </summary>
    public static void StopAllWhenIdle(IReadOnlyList<Iperf3StreamReceiver> receivers, TimeSpan limit)
    {
        foreach (var receiver in receivers)
        {
            receiver._stopWhenIdle = true;
        }

        var deadline = Stopwatch.GetTimestamp() + (long)(limit.TotalSeconds * Stopwatch.Frequency);
        var busy = receivers.Where(r => !r._thread.Join(TimeSpan.FromTicks(Math.Max(0, Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), deadline).Ticks)))).ToArray();
        foreach (var receiver in busy)
        {
            receiver._stopped = true;
        }

        foreach (var receiver in busy)
        {
            receiver._thread.Join(Poll * 4);
        }
    }

    public void Dispose()
    {
        _stopped = true;
        _thread.JoinIfStarted(Poll * 4);
        _socket.Dispose();
    }

    private void Run()
    {
        var batch = new ReceiveBatch(64);
        try
        {
            while (!_stopped)
            {
                if (_socket.Receive(batch, Poll) == 0)
                {
                    if (_stopWhenIdle)
                    {
                        return;
                    }

                    continue;
                }

                var now = MonotonicClock.NowNanoseconds();
                foreach (var datagram in batch)
                {
                    Counter.Record(datagram.Payload, datagram.IsTruncated, now);
                }
            }
        }
        catch (ObjectDisposedException)
        {
            // Disposed: the test was cut short.
        }

    }
}
