using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Perf.Tests.Iperf3;

public sealed class Iperf3SidesTests
{
    [Fact]
    public void PeerReceiver_TailTheReceiverNeverSaw_CountsAsLostAgainstWhatWeSent()
    {
        // Stream 1: 10 sent, iperf3 saw counters up to 8 with 1 gap. Stream 3: 5 sent, all seen.
        var results = new Iperf3Results(0, [new Iperf3StreamResult(1, 700, 0, 1, 8, 0, 1), new Iperf3StreamResult(3, 500, 0, 0, 5, 0, 1)]);

        var side = Iperf3Sides.PeerReceiver(results, [10, 5], seconds: 1);

        Assert.Equal(7 + 5, side.Datagrams);
        Assert.Equal(3, side.Lost);
        Assert.Equal(100.0 * 3 / 15, side.LossPercent, 9);
    }

    [Fact]
    public void PeerReceiver_GapsOnly_LostIsTheReceiversErrors()
    {
        var results = new Iperf3Results(0, [new Iperf3StreamResult(1, 900, 0, 1, 10, 0, 1)]);

        var side = Iperf3Sides.PeerReceiver(results, [10], seconds: 1);

        Assert.Equal(9, side.Datagrams);
        Assert.Equal(1, side.Lost);
    }
}
