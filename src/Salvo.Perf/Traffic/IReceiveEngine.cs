using System.Net;

namespace Salvo.Perf.Traffic;

/// <summary>
/// What server and client need from a receiving side: bind once, count each test's datagrams per flow,
/// answer rr requests. <see cref="ReceiveEngine"/> does it as a handler on a DatagramServer.
/// </summary>
internal interface IReceiveEngine : IDisposable
{
    /// <summary>The bound address (the actual port when 0 was asked for).</summary>
    IPEndPoint LocalEndPoint { get; }

    /// <summary>The backend the receiving sockets report they use.</summary>
    DatagramBackend Backend { get; }

    /// <summary>Where datagrams without Salvo's header go while set (another protocol's set-up on this port); null drops them.</summary>
    UnrecognisedDatagramHandler? UnrecognisedDatagrams { get; set; }

    /// <summary>Starts counting a new test from zero.</summary>
    void BeginTest();

    /// <summary>Stops counting: later datagrams belong to no test.</summary>
    void EndTest();

    /// <summary>The current test's counters; with the sender's per-flow counts, loss includes the tail.</summary>
    ReceiveTotals Snapshot(IReadOnlyList<long>? sentPerFlow = null);
}

/// <summary>Takes one datagram that is not Salvo's; runs on a receive worker's thread, so it must not block.</summary>
internal delegate void UnrecognisedDatagramHandler(ReadOnlySpan<byte> payload, DatagramAddress source);

/// <summary>Chooses the receive engine.</summary>
internal static class ReceiveEngines
{
    /// <summary>Opens <paramref name="workers"/> receive workers bound to <paramref name="bind"/>.</summary>
    /// <exception cref="System.Net.Sockets.SocketException">The address is in use or cannot be bound.</exception>
    public static IReceiveEngine Create(IPEndPoint bind, int workers, bool answerRequests, DatagramBackend backend, Sockperf.SockperfService? sockperf = null) =>
        new ReceiveEngine(bind, workers, answerRequests, backend, sockperf);
}
