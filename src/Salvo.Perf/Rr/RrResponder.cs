using System.Net;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Rr;

/// <summary>
/// The rr test's echo-like responder: a Salvo <see cref="DatagramSocket"/> on a dedicated thread that
/// answers each request with a response of the size the request asks for. Used in-process by
/// <c>salvo rr</c> and by <c>salvo server</c> for remote rr tests.
/// </summary>
internal sealed class RrResponder : IDisposable
{
    private readonly DatagramSocket _socket;
    private readonly Thread _thread;
    private readonly CancellationTokenSource _stop = new();
    private readonly PinFailures _pinFailures = new();
    private readonly int? _cpu;
    private long _answered;
    private long _malformed;

    public RrResponder(IPEndPoint bind, DatagramBackend backend = DatagramBackend.Auto, int? cpu = null)
    {
        _cpu = cpu;
        _socket = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = bind, Backend = backend, ReceiveBufferSize = 4 << 20, SendBufferSize = 4 << 20 });
        _thread = new Thread(Run) { Name = "salvo-rr-responder", IsBackground = true };
        _thread.Start();
    }

    /// <summary>Where requests go.</summary>
    public IPEndPoint LocalEndPoint => _socket.LocalEndPoint;

    /// <summary>The backend the socket reports it uses.</summary>
    public DatagramBackend Backend => _socket.Backend;

    /// <summary>Why the responder's thread could not be pinned, or null.</summary>
    public string? PinFailure => _pinFailures.First;

    /// <summary>Requests answered.</summary>
    public long Answered => Volatile.Read(ref _answered);

    /// <summary>Datagrams that were not valid requests (counted and dropped).</summary>
    public long Malformed => Volatile.Read(ref _malformed);

    /// <summary>Answers every request in <paramref name="batch"/> through <paramref name="socket"/>; returns (answered, malformed).</summary>
    public static (int Answered, int Malformed) AnswerAll(DatagramSocket socket, ReceiveBatch batch, SendBatch replies)
    {
        var answered = 0;
        var malformed = 0;
        replies.Clear();
        foreach (var datagram in batch)
        {
            if (!RrWire.TryAnswer(datagram.Payload, datagram.Source, replies, out var bad))
            {
                answered += socket.Send(replies);
                replies.Clear();
                RrWire.TryAnswer(datagram.Payload, datagram.Source, replies, out bad);
            }

            malformed += bad ? 1 : 0;
        }

        if (replies.Count > 0)
        {
            answered += socket.Send(replies);
        }

        return (answered, malformed);
    }

    public void Dispose()
    {
        _stop.Cancel();
        _thread.Join(TimeSpan.FromSeconds(2));
        _socket.Dispose();
        _stop.Dispose();
    }

    private void Run()
    {
        _pinFailures.Pin(_cpu);
        var batch = new ReceiveBatch(64);
        var replies = new SendBatch(64);
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                if (_socket.Receive(batch, TimeSpan.FromMilliseconds(50)) == 0)
                {
                    continue;
                }

                var (answered, malformed) = AnswerAll(_socket, batch, replies);
                Interlocked.Add(ref _answered, answered);
                Interlocked.Add(ref _malformed, malformed);
            }
        }
        catch (ObjectDisposedException)
        {
            // Disposed while waiting: the run is over.
        }
    }
}
