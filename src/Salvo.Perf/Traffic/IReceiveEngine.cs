using System.Net;

namespace Salvo.Perf.Traffic;

/// <summary>
/// What server and client need from a receiving side: bind once, count each test's datagrams per flow,
/// answer rr requests. <see cref="ReceiveEngine"/> does it with N sockets sharing the port; a
/// DatagramServer-based engine plugs in here through <see cref="ReceiveEngines.Create"/>.
/// </summary>
internal interface IReceiveEngine : IDisposable
{
    /// <summary>The bound address (the actual port when 0 was asked for).</summary>
    IPEndPoint LocalEndPoint { get; }

    /// <summary>Starts counting a new test from zero.</summary>
    void BeginTest();

    /// <summary>Stops counting: later datagrams belong to no test.</summary>
    void EndTest();

    /// <summary>The current test's counters; with the sender's per-flow counts, loss includes the tail.</summary>
    ReceiveTotals Snapshot(IReadOnlyList<long>? sentPerFlow = null);
}

/// <summary>Chooses the receive engine.</summary>
internal static class ReceiveEngines
{
    /// <summary>Opens <paramref name="workers"/> receive workers bound to <paramref name="bind"/>.</summary>
    /// <exception cref="System.Net.Sockets.SocketException">The address is in use or cannot be bound.</exception>
    public static IReceiveEngine Create(IPEndPoint bind, int workers, bool answerRequests, Sockperf.SockperfService? sockperf = null) =>
        new ReceiveEngine(bind, workers, answerRequests, sockperf);
}
