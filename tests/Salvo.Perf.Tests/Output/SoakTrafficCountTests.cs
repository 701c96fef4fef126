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
        // A high rate makes batches of 64 per send: echoes of a batch could come back and be counted while its
        // sender was not yet back from the send or not yet counting it (seen in a run under load, load average 24
        // on 2 cores). More readers than cores are preempted between the counts as that run's sampler was.
        await using var load = await SoakLoad.StartAsync(IPAddress.Loopback, datagramsPerSecond: 1_000_000, connectionsPerSecond: 1);
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(3));
        var run = load.RunAsync(stop.Token);

        var readers = Enumerable.Range(0, 4).Select(_ => Task.Factory.StartNew(() =>
        {
            var worst = (Sent: 0L, Echoed: 0L, Samples: 0L);
            while (!stop.IsCancellationRequested)
            {
                var traffic = load.Traffic;
                worst.Samples++;
                if (traffic.DatagramsEchoed - traffic.DatagramsSent > worst.Echoed - worst.Sent)
                {
                    worst = (traffic.DatagramsSent, traffic.DatagramsEchoed, worst.Samples);
                }
            }

            return worst;
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();

        var results = await Task.WhenAll(readers).WaitAsync(TimeSpan.FromSeconds(30));
        await run.WaitAsync(TimeSpan.FromSeconds(30));
        var end = load.Traffic;
        Assert.True(end.DatagramsSent > 0 && end.DatagramsEchoed > 0, $"sent {end.DatagramsSent}, echoed {end.DatagramsEchoed}");
        foreach (var (sent, echoed, samples) in results)
        {
            Assert.True(echoed <= sent, $"a sample of {samples:N0} showed sent {sent:N0} echoed {echoed:N0}");
        }
    }
}
