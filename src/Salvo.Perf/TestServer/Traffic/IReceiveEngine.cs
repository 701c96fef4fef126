using System.Net;

namespace Salvo.Perf.TestServer.Traffic;

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

    /// <summary>Frames the sockets took off the wire and dropped since they opened, by reason; all zero unless the backend is AF_XDP.</summary>
    FrameDropCounts FrameDrops { get; }

    /// <summary>Offered datagrams without Salvo's header first while set (an iperf3 test on this port), before the sockperf service.</summary>
    UnrecognisedDatagramHandler? UnrecognisedDatagrams { get; set; }

    /// <summary>Starts counting a new test from zero.</summary>
    void BeginTest();

    /// <summary>Stops counting: later datagrams belong to no test.</summary>
    void EndTest();

    /// <summary>The current test's counters; with the sender's per-flow counts, loss includes the tail.</summary>
    ReceiveTotals Snapshot(IReadOnlyList<long>? sentPerFlow = null);
}

/// <summary>
/// Offered one datagram that is not Salvo's (<paramref name="truncated"/> when it was longer than the receive buffer);
/// true when it belongs to the protocol being served, false to let others look at it. Runs on a receive worker's
/// thread, so it must not block.
/// </summary>
internal delegate bool UnrecognisedDatagramHandler(ReadOnlySpan<byte> payload, DatagramAddress source, bool truncated);

/// <summary>Chooses the receive engine.</summary>
internal static class ReceiveEngines
{
    /// <summary>Opens <paramref name="workers"/> receive workers bound to <paramref name="bind"/>.</summary>
    /// <exception cref="System.Net.Sockets.SocketException">The address is in use or cannot be bound.</exception>
    public static IReceiveEngine Create(IPEndPoint bind, int workers, bool answerRequests, DatagramBackend backend, Sockperf.SockperfService? sockperf = null, bool afXdpBusyPoll = false) =>
        new ReceiveEngine(bind, workers, answerRequests, backend, sockperf, afXdpBusyPoll);
}
