using Salvo.Perf.Loopback;

namespace Salvo.Perf.Tests;

[Collection(WholeProcessCollection.Name)]
public sealed class LoopbackSummaryTests
{
    [Fact]
    public void Summarize_LossInOneRepetition_LossAndKernelDropsBothCountEveryRepetition()
    {
        LoopbackSample[] samples =
        [
            Sample(repetition: 1, sent: 1_000, received: 1_000, kernelDrops: 0),
            Sample(repetition: 2, sent: 1_000, received: 1_000, kernelDrops: 0),
            Sample(repetition: 3, sent: 1_000, received: 400, kernelDrops: 600),
        ];

        var result = Assert.Single(LoopbackResult.Summarize(samples, LoopbackMethods.All));

        // 600 of 3,000 lost over the three repetitions: the same datagrams the 600 kernel drops count.
        Assert.Equal(20.0, result.LossPercent, 9);
        Assert.Equal(600, result.KernelRcvbufErrors);
    }

    [Fact]
    public async Task Text_Table_SaysWhatEachColumnSpansAndWhatTheBaselinesAre()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-t", "0.1", "--warmup", "0.05", "-l", "64", "--repeat", "2", "--methods", "naive,socket,salvo");

        Assert.True(exit == 0, error);
        Assert.Contains("total loss", output, StringComparison.Ordinal);
        Assert.Contains("total RcvbufErrors", output, StringComparison.Ordinal);
        Assert.Contains("medians of 2 repetition(s)", output, StringComparison.Ordinal);
        Assert.Contains("count all 2 repetition(s) together", output, StringComparison.Ordinal);
        Assert.Contains("naive = the usual .NET code: UdpClient", output, StringComparison.Ordinal);
        Assert.Contains("socket = plain .NET", output, StringComparison.Ordinal);
    }

    private static LoopbackSample Sample(int repetition, long sent, long received, long kernelDrops) =>
        new("socket", 64, repetition, received, 0, sent, 50, 50, 100, 0, 0, sent, received,
            100.0 * (sent - received) / sent, kernelDrops);
}
