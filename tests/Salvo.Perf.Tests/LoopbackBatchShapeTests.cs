using System.Text.Json;
using Salvo.Perf.Loopback;

namespace Salvo.Perf.Tests;

/// <summary>
/// How the loopback ends shape their batches: whole GSO messages, GRO receives sized to the runs they take, and
/// connected sends with --connect.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class LoopbackBatchShapeTests
{
    private static readonly DatagramCapabilities WithGso = new(BatchedIo: true, Gso: true, Gro: true, MaxGsoSegments: 64);

    [Theory]
    [InlineData(1_380, 47)]
    [InlineData(64, 64)]
    [InlineData(1_200, 54)]
    public void GsoBatch_IsWholeMessages_SeveralOfThem_WithinTheBatchLimits(int size, int perMessage)
    {
        var capacity = SalvoMethod.GsoBatchFor(WithGso, size);

        Assert.Equal(0, capacity % perMessage);
        Assert.True(capacity / perMessage >= 2, $"{capacity} datagrams is fewer than two messages");
        Assert.InRange(capacity, perMessage, 1_024);
        Assert.True((long)capacity * size <= 256 * 1024, $"{capacity} x {size} B is over 256 KiB");
    }

    [Fact]
    public void GsoBatch_OfDatagramsTooLargeToShareAMessage_OrWithoutGso_IsThePlainBatch()
    {
        Assert.Equal(SalvoMethod.BatchFor(65_000), SalvoMethod.GsoBatchFor(WithGso, 65_000));
        Assert.Equal(SalvoMethod.BatchFor(1_380), SalvoMethod.GsoBatchFor(default, 1_380));
    }

    [Theory]
    [InlineData(64, 64)]
    [InlineData(1_380, 4)]
    [InlineData(65_000, 4)]
    public void GroReceive_TakesAsManyBuffersAsItsRunsFillIn256KiB(int size, int buffers)
    {
        Assert.Equal(buffers, SalvoMethod.GroBatchFor(WithGso, size));
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Connect_SendersOnAConnectedSocket_DeliverOnEveryMethod()
    {
        var (exit, output, error) = await Cli.RunAsync(
            "loopback", "--connect", "-m", "naive,socket,salvo,salvo-gso,salvo-async", "-l", "64", "-t", "0.2", "--warmup", "0.05", "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.True(document.RootElement.GetProperty("settings").GetProperty("connected").GetBoolean());

        // A send without a destination on a socket that was not connected fails (EDESTADDRREQ) and ends the run
        // with an error; here every method sent. (What arrives in 0.2 s on a loaded machine may be nothing.)
        Assert.All(document.RootElement.GetProperty("samples").EnumerateArray(),
            sample => Assert.True(sample.GetProperty("sent").GetInt64() > 0, sample.GetRawText()));
    }
}
