using System.Net;
using System.Runtime.Versioning;
using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

/// <summary>The rr client on io_uring: its receiving thread drives its own ring, with no engine thread between.</summary>
[SupportedOSPlatform("linux")]
public sealed class RrClientIoUringRingTests
{
    [RequiresFact(Requirement.IoUring)]
    public void ClosedLoopOnIoUring_ReceivesOnTheLoopThreadsOwnRing_AndCompletesRoundTrips()
    {
        // A response that went through a shared engine thread woke two threads instead of one; under CPU contention
        // each wake-up waited up to a 4 ms scheduler tick (docs/benchmarks.md, the io_uring section).
        using var responder = new RrServerResponder(new IPEndPoint(IPAddress.Loopback, 0), 1, TimeSpan.Zero, DatagramBackend.IoUring);
        var now = MonotonicClock.NowNanoseconds();
        var plan = new RrPlan(now, now + 200_000_000, 1_000_000_000);
        using var connection = new RrConnection(responder.LocalEndPoint, plan, new SalvoRrCodec(64, 64), 64, DatagramBackend.IoUring);
        Assert.Equal(DatagramBackend.IoUring, connection.Backend);

        var thread = new Thread(() => connection.RunClosedLoop(4));
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the closed loop did not end after its 200 ms window");

        Assert.True(connection.ReceivedOnOwnRing, "the closed loop received through a shared ring");
        Assert.True(connection.Completed > 0, "no round trip completed");
    }
}
