using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Pacing;
using Salvo.Perf.Protocol;
using Salvo.Perf.Threading;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>Writes the header of the datagram <paramref name="sequence"/> (from 0) of <paramref name="flow"/> into its payload.</summary>
internal delegate void DatagramStamp(Span<byte> payload, int flow, ulong sequence);

/// <summary>
/// The sending side of server/client tests: one thread and one Salvo <see cref="DatagramSocket"/> per flow,
/// each datagram carrying a <see cref="PayloadHeader"/> (flow, sequence, send time), paced by a
/// <see cref="Pacer"/> to the flow's share of the target rate: it sleeps between bursts of rate x the
/// sleep tick and sends what is due in batches of up to 64.
/// </summary>
internal sealed class TrafficSender : IDisposable
{
    private const int BatchSize = 64;

    private readonly DatagramSocket[] _sockets;
    private readonly Thread[] _threads;
    private readonly long[] _sent;
    private readonly long[] _bytes;
    private readonly CancellationTokenSource _stop = new();
    private readonly DatagramStamp _stamp;
    private int _disposed;

    /// <param name="bind">Local address to send from (port 0 per flow).</param>
    /// <param name="targets">Where each flow sends.</param>
    /// <param name="length">Bytes per datagram (at least the header).</param>
    /// <param name="bitsPerSecond">Rate over all flows; 0 sends as fast as possible.</param>
    /// <param name="seconds">How long to send.</param>
    /// <param name="backend">The sockets' backend.</param>
    public TrafficSender(IPAddress bind, IReadOnlyList<IPEndPoint> targets, int length, long bitsPerSecond, double seconds, DatagramBackend backend = DatagramBackend.Auto)
        : this(targets.Select(t => new DatagramSocket(new DatagramSocketOptions
        {
            Backend = backend,
            LocalEndPoint = new IPEndPoint(t.AddressFamily == bind.AddressFamily ? bind : (t.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any), 0),
            SendBufferSize = 4 << 20,
        })).ToArray(), targets, length, bitsPerSecond, seconds, StampSalvoHeader)
    {
    }

    /// <summary>Sends through <paramref name="sockets"/> (one per flow, owned from now on), each datagram stamped by <paramref name="stamp"/>.</summary>
    public TrafficSender(DatagramSocket[] sockets, IReadOnlyList<IPEndPoint> targets, int length, long bitsPerSecond, double seconds, DatagramStamp stamp)
    {
        _sockets = sockets;
        _stamp = stamp;
        _sent = new long[targets.Count];
        _bytes = new long[targets.Count];
        var perFlow = bitsPerSecond > 0 ? bitsPerSecond / 8.0 / length / targets.Count : 0;
        _threads = Enumerable.Range(0, targets.Count).Select(flow => new Thread(() => Run(flow, targets[flow], length, perFlow, seconds))
        {
            Name = $"salvo-send-{flow}",
            IsBackground = true,
        }).ToArray();
    }

    /// <summary>The backend the sockets report they use.</summary>
    public DatagramBackend Backend => _sockets[0].Backend;

    /// <summary>Datagrams the kernel accepted, per flow.</summary>
    public long[] SentPerFlow => _sent.ToArray();

    /// <summary>Datagrams accepted in all.</summary>
    public long Datagrams => _sent.Sum();

    /// <summary>Payload bytes accepted in all.</summary>
    public long Bytes => _bytes.Sum();

    /// <summary>Datagrams the kernel refused (counted by the sockets).</summary>
    public long Refused => _sockets.Sum(s => s.GetStatistics().SendErrors);

    /// <summary>Starts every flow.</summary>
    public void Start()
    {
        foreach (var thread in _threads)
        {
            thread.Start();
        }
    }

    /// <summary>Waits up to <paramref name="timeout"/> for every flow to finish.</summary>
    public bool Join(TimeSpan timeout) => _threads.All(t => t.Join(timeout));

    /// <summary>Stops every flow and closes the sockets; the counts stay readable. A second call does nothing (a test cut short stops its sender before the scope that owns it ends).</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _stop.Cancel();
        foreach (var thread in _threads)
        {
            thread.JoinIfStarted(TimeSpan.FromSeconds(2));
        }

        foreach (var socket in _sockets)
        {
            socket.Dispose();
        }

        _stop.Dispose();
    }

    private void Run(int flow, IPEndPoint target, int length, double perSecond, double seconds)
    {
        var socket = _sockets[flow];
        var batch = new SendBatch(BatchSize, length);
        var destination = DatagramAddress.FromIPEndPoint(target);
        var clock = SystemPacerClock.Instance;
        var start = clock.NowNanoseconds();
        var end = start + (long)(seconds * 1e9);
        var pacer = perSecond > 0 ? new Pacer(perSecond, start, clock) : null;
        ulong sequence = 0;
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                var due = pacer?.WaitForBurst((long)sequence, end) ?? (MonotonicClock.NowNanoseconds() < end ? BatchSize : 0);
                if (due == 0)
                {
                    return;
                }

                batch.Clear();
                for (var i = 0; i < Math.Min(due, BatchSize) && batch.TryAdd(length, destination, out var payload); i++)
                {
                    _stamp(payload, flow, sequence++);
                }

                var accepted = socket.Send(batch);
                Volatile.Write(ref _sent[flow], _sent[flow] + accepted);
                Volatile.Write(ref _bytes[flow], _bytes[flow] + ((long)accepted * length));
            }
        }
        catch (ObjectDisposedException)
        {
            // Disposed: the test was cut short.
        }
    }

    private static void StampSalvoHeader(Span<byte> payload, int flow, ulong sequence) =>
        new PayloadHeader(PayloadKind.Data, (ushort)flow, sequence, MonotonicClock.NowNanoseconds()).Write(payload);
}
