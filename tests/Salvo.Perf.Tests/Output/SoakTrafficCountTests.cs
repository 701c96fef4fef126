using System.Net;
using Salvo.Perf.Soak;

namespace Salvo.Perf.Tests.Output;

/// <summary>The soak's per-sample counts: an echo is never counted before the datagram it answers.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class SoakTrafficCountTests
{
    [Fact]
    public async Task Traffic_ReadWhileTheLoadRuns_NeverShowsMoreEchoedThanSent()
    {
        // A high rate makes batches of 64 per send: echoes of the first datagrams of a batch came back while the
        // rest was still being sent, and were counted before their batch was.
        await using var load = await SoakLoad.StartAsync(IPAddress.Loopback, datagramsPerSecond: 200_000, connectionsPerSecond: 1);
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(2));
        var run = load.RunAsync(stop.Token);

        var samples = 0L;
        var worst = (Sent: 0L, Echoed: 0L);
        while (!stop.IsCancellationRequested)
        {
            var traffic = load.Traffic;
            samples++;
            if (traffic.DatagramsEchoed - traffic.DatagramsSent > worst.Echoed - worst.Sent)
            {
                worst = (traffic.DatagramsSent, traffic.DatagramsEchoed);
            }
        }

        await run.WaitAsync(TimeSpan.FromSeconds(30));
        var end = load.Traffic;
        Assert.True(end.DatagramsSent > 0 && end.DatagramsEchoed > 0, $"sent {end.DatagramsSent}, echoed {end.DatagramsEchoed}");
        Assert.True(worst == (0, 0), $"a sample of {samples} showed sent {worst.Sent:N0} echoed {worst.Echoed:N0}");
    }
}
