using System.Net;
using Salvo.Perf.Measurement;
using Salvo.Server;

namespace Salvo.Perf.Rr;

/// <summary>
/// The rr responder on Salvo's server: a <see cref="DatagramServer"/> whose handler answers every request of a
/// batch into the worker's reply batch, sent in one batched call. With a busy-poll time above zero the
/// workers spin on non-blocking receives that long before blocking (the server's low-latency mode). Given a CPU,
/// each worker's receive thread pins itself there as it starts.
/// </summary>
internal sealed class RrServerResponder : IDisposable
{
    private readonly DatagramServer _server;
    private readonly PinFailures _pinFailures = new();

    public RrServerResponder(IPEndPoint bind, int workers, TimeSpan busyPoll, DatagramBackend backend = DatagramBackend.Auto, int? cpu = null)
    {
        _server = new DatagramServer(
            new DatagramServerOptions
            {
                EndPoint = bind,
                Backend = backend,
                Workers = workers,
                BusyPoll = busyPoll,
                ReceiveBufferSize = 4 << 20,
                SendBufferSize = 4 << 20,
                ReceiveThreadStarted = cpu is null ? null : _ => _pinFailures.Pin(cpu),
            },
            new Handler());
        _server.StartAsync().GetAwaiter().GetResult();
    }

    public IPEndPoint LocalEndPoint => _server.LocalEndPoint;

    /// <summary>The backend the server's sockets report they use.</summary>
    public DatagramBackend Backend => _server.Backend;

    /// <summary>Requests the worker picked up while spinning; 0 without busy polling.</summary>
    public long BusyPollDatagrams => _server.GetStatistics().BusyPollDatagrams;

    /// <summary>Why a worker could not be pinned, or null.</summary>
    public string? PinFailure => _pinFailures.First;

    public void Dispose() => _server.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(10));

    private sealed class Handler : IDatagramHandler
    {
        public void Handle(in DatagramContext context)
        {
            foreach (var datagram in context.Datagrams)
            {
                RrWire.TryAnswer(datagram.Payload, datagram.Source, context.Replies, out _);
            }
        }
    }
}
