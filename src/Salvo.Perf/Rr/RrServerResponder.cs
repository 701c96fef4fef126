using System.Net;
using Salvo.Perf.Measurement;
using Salvo.Server;

namespace Salvo.Perf.Rr;

/// <summary>
/// The rr responder on Salvo's server: a <see cref="DatagramServer"/> whose handler answers every request of a
/// batch into the worker's reply batch, sent in one batched call. With a busy-poll time above zero the
/// workers spin on non-blocking receives that long before blocking (the server's low-latency mode). Given a CPU,
/// each worker pins itself there on its first batch: the server owns its threads, and the handler is the first
/// code of ours to run on them.
/// </summary>
internal sealed class RrServerResponder : IDisposable
{
    private readonly DatagramServer _server;
    private readonly Handler _handler;

    public RrServerResponder(IPEndPoint bind, int workers, TimeSpan busyPoll, DatagramBackend backend = DatagramBackend.Auto, int? cpu = null)
    {
        _handler = new Handler(cpu, workers);
        _server = new DatagramServer(
            new DatagramServerOptions
            {
                EndPoint = bind,
                Backend = backend,
                Workers = workers,
                BusyPoll = busyPoll,
                ReceiveBufferSize = 4 << 20,
                SendBufferSize = 4 << 20,
            },
            _handler);
        _server.StartAsync().GetAwaiter().GetResult();
    }

    public IPEndPoint LocalEndPoint => _server.LocalEndPoint;

    /// <summary>The backend the server's sockets report they use.</summary>
    public DatagramBackend Backend => _server.Backend;

    /// <summary>Requests the worker picked up while spinning; 0 without busy polling.</summary>
    public long BusyPollDatagrams => _server.GetStatistics().BusyPollDatagrams;

    /// <summary>Why a worker could not be pinned, or null.</summary>
    public string? PinFailure => _handler.PinFailures.First;

    public void Dispose() => _server.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(10));

    private sealed class Handler(int? cpu, int workers) : IDatagramHandler
    {
        private readonly bool[] _pinned = new bool[workers];

        public PinFailures PinFailures { get; } = new();

        public void Handle(in DatagramContext context)
        {
            if (cpu is not null && !_pinned[context.WorkerIndex])
            {
                _pinned[context.WorkerIndex] = true;
                PinFailures.Pin(cpu);
            }

            foreach (var datagram in context.Datagrams)
            {
                RrWire.TryAnswer(datagram.Payload, datagram.Source, context.Replies, out _);
            }
        }
    }
}
