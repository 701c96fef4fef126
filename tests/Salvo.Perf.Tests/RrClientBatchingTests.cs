using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary>The rr client sends its requests in batches and takes responses in batches.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class RrClientBatchingTests
{
    [RequiresFact(Requirement.Linux)]
    public async Task SixteenInFlight_SendsSeveralRequestsPerCall_AndAnswersEachOnce()
    {
        var (exit, output, error) = await Cli.RunAsync("rr", "-P", "16", "-t", "0.3", "--warmup", "0.05", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var result = document.RootElement.GetProperty("result");

        // The first window of 16 leaves in one call, so the average is above one request per call even if
        // every later answer came back alone; it stays at or under the window.
        Assert.InRange(result.GetProperty("requestsPerSendCall").GetDouble(), 1.0001, 16);
        Assert.InRange(result.GetProperty("responsesPerReceiveCall").GetDouble(), 1, 16);
        Assert.Equal(0, result.GetProperty("late").GetInt64());
        Assert.Equal(0, result.GetProperty("malformed").GetInt64());
    }
}
