using System.Net;
using System.Text.Json;
using Salvo.Perf.Measurement;
using Salvo.Perf.Rr;

namespace Salvo.Perf.Tests;

/// <summary>
/// <c>salvo rr</c> pins its client threads and its in-process responder to two different CPUs by default: on a
/// 2-core machine the figure changes eightfold between one shared core and two, so the placement is chosen and said.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class RrPlacementTests
{
    [Fact]
    public void Choose_ByDefault_PutsTheEndsOnTheFirstTwoAllowedCpus()
    {
        Assert.Equal(((int?)2, (int?)5), CpuPlacement.Choose(false, (-1, "--a"), (-1, "--b"), [2, 5, 7]));
    }

    [Fact]
    public void Choose_WithOneEndGiven_PutsTheOtherEndElsewhere()
    {
        Assert.Equal(((int?)5, (int?)2), CpuPlacement.Choose(false, (-1, "--a"), (2, "--b"), [2, 5, 7]));
        Assert.Equal(((int?)7, (int?)2), CpuPlacement.Choose(false, (7, "--a"), (-1, "--b"), [2, 5, 7]));
    }

    [Fact]
    public void Choose_BothEndsOnOneCpu_WhenAskedExplicitly()
    {
        Assert.Equal(((int?)5, (int?)5), CpuPlacement.Choose(false, (5, "--a"), (5, "--b"), [2, 5, 7]));
    }

    [Fact]
    public void Choose_NoPinOrNoAffinity_PinsNothing()
    {
        Assert.Equal(((int?)null, (int?)null), CpuPlacement.Choose(true, (-1, "--a"), (-1, "--b"), [0, 1]));
        Assert.Equal(((int?)null, (int?)null), CpuPlacement.Choose(false, (-1, "--a"), (-1, "--b"), null));
        Assert.Equal(((int?)null, (int?)null), CpuPlacement.Choose(false, (-1, "--a"), (-1, "--b"), [3]));
    }

    [Fact]
    public void Choose_ACpuThisProcessMayNotUse_FailsNamingTheOption()
    {
        var error = Assert.Throws<Salvo.Perf.Cli.CliException>(() => CpuPlacement.Choose(false, (-1, "--client-cpu"), (9, "--responder-cpu"), [0, 1]));
        Assert.Contains("--responder-cpu", error.Message, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux | Requirement.TwoCpus)]
    public async Task Rr_ByDefault_ReportsTheClientAndResponderOnDifferentCpus()
    {
        var allowed = CpuAffinity.AllowedCpus();

        var (exit, output, error) = await Cli.RunAsync("rr", "-t", "0.3", "--warmup", "0.1", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        var settings = document.RootElement.GetProperty("settings");
        Assert.Equal(allowed[0], settings.GetProperty("clientCpu").GetInt32());
        Assert.Equal(allowed[1], settings.GetProperty("responderCpu").GetInt32());
        Assert.False(document.RootElement.GetProperty("result").TryGetProperty("pinFailure", out _), output);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Rr_NoPin_ReportsNoPlacement()
    {
        var (exit, output, error) = await Cli.RunAsync("rr", "--no-pin", "-t", "0.3", "--warmup", "0.1", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.False(document.RootElement.GetProperty("settings").TryGetProperty("clientCpu", out _), output);
    }

    [RequiresFact(Requirement.Linux)]
    public void Responder_GivenACpu_RunsItsThreadThere()
    {
        var cpu = CpuAffinity.AllowedCpus()[^1];
        using var responder = new RrServerResponder(new IPEndPoint(IPAddress.Loopback, 0), workers: 1, busyPoll: TimeSpan.Zero, cpu: cpu);

        Assert.Equal(cpu.ToString(System.Globalization.CultureInfo.InvariantCulture), WaitForThreadCpuList("salvo-receive-0"));
    }

    /// <summary>The Cpus_allowed_list of this process's thread named <paramref name="comm"/> (Linux truncates names to 15 characters).</summary>
    private static string WaitForThreadCpuList(string comm)
    {
        var deadline = DateTime.UtcNow.AddSeconds(5);
        while (DateTime.UtcNow < deadline)
        {
            foreach (var task in Directory.GetDirectories("/proc/self/task"))
            {
                if (File.ReadAllText(Path.Combine(task, "comm")).Trim() != comm)
                {
                    continue;
                }

                var line = File.ReadLines(Path.Combine(task, "status")).First(l => l.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal));
                var list = line["Cpus_allowed_list:".Length..].Trim();
                if (!list.Contains(',', StringComparison.Ordinal) && !list.Contains('-', StringComparison.Ordinal))
                {
                    return list;
                }
            }

            Thread.Sleep(20);
        }

        return "(thread not pinned within 5 s)";
    }
}
