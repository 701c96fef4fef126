using System.Diagnostics;
using Salvo.Perf.Platform;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Tests.Platform;

/// <summary>The one runner every program the CLI starts goes through.</summary>
public sealed class ChildProcessTests
{
    [RequiresFact(Requirement.Linux, Tools = ["sh"])]
    public void Run_ReturnsExitCodeAndStandardOutputThenStandardError()
    {
        var (exitCode, output) = ChildProcess.Run("sh", ["-c", "echo to-error >&2; echo to-output; exit 3"]);

        Assert.Equal(3, exitCode);
        Assert.Equal("to-output\nto-error", output);
    }

    [RequiresFact(Requirement.Linux, Tools = ["sleep"])]
    public void Run_PastItsTimeout_IsKilledAndSaysSo()
    {
        var clock = Stopwatch.StartNew();

        var (exitCode, output) = ChildProcess.Run("sleep", ["30"], timeoutSeconds: 1);

        Assert.Equal(-1, exitCode);
        Assert.Equal("ran past 1 s", output);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(20), clock.Elapsed.ToString());
    }

    [Fact]
    public void Run_AProgramThatIsNotThere_IsAnExitCodeNotAnException()
    {
        var (exitCode, output) = ChildProcess.Run("/nonexistent/salvo-no-such-program", []);

        Assert.Equal(-1, exitCode);
        Assert.StartsWith("could not start /nonexistent/salvo-no-such-program", output, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux, Tools = ["seq"])]
    public void Output_KeepsAtMostMaxLinesAndCountsTheRest()
    {
        using var child = ChildProcess.Start("seq", ["1", (ChildProcess.MaxLines + 500).ToString(System.Globalization.CultureInfo.InvariantCulture)]);

        var output = child.WaitForExit(TimeSpan.FromSeconds(30), CancellationToken.None);

        Assert.NotNull(output);
        Assert.Equal(ChildProcess.MaxLines, output.Split('\n').Length);
        Assert.Equal(500, child.DroppedLines);
    }

    [RequiresFact(Requirement.Linux, Tools = ["sleep"])]
    public void Dispose_KillsAProcessStillRunning()
    {
        int id;
        using (var child = ChildProcess.Start("sleep", ["60"]))
        {
            id = child.Id;
            Assert.False(child.HasExited);
        }

        Assert.False(ProcFiles.ProcessExists(id.ToString(System.Globalization.CultureInfo.InvariantCulture)) && !IsZombie(id), $"pid {id} still runs");
    }

    [RequiresFact(Requirement.Linux, Tools = ["sh"])]
    public async Task ExpectAsync_PassesOverOtherLinesAndReadsWhatItsInputAsked()
    {
        using var child = ChildProcess.Start("sh", ["-c", "echo noise; read line; echo \"ready $line\"; read quit"]);

        await child.WriteLineAsync("42");

        Assert.Equal("42", await child.ExpectAsync("ready", TimeSpan.FromSeconds(30)));
        Assert.True(child.TryWriteLine("quit"));
        Assert.True(child.WaitForExit(TimeSpan.FromSeconds(30)));
        Assert.Null(await child.ExpectAsync("ready", TimeSpan.FromSeconds(1)));
    }

    [RequiresFact(Requirement.Linux, Tools = ["sh"])]
    public void Environment_SetsAndRemovesVariables()
    {
        Environment.SetEnvironmentVariable("SALVO_CHILD_PROCESS_TEST_INHERITED", "inherited");
        try
        {
            var options = new ChildProcessOptions
            {
                Environment = new Dictionary<string, string?> { ["SALVO_CHILD_PROCESS_TEST_SET"] = "set", ["SALVO_CHILD_PROCESS_TEST_INHERITED"] = null },
            };
            using var child = ChildProcess.Start("sh", ["-c", "echo \"[$SALVO_CHILD_PROCESS_TEST_SET][$SALVO_CHILD_PROCESS_TEST_INHERITED]\""], options);

            Assert.Equal("[set][]", child.WaitForExit(TimeSpan.FromSeconds(30), CancellationToken.None));
        }
        finally
        {
            Environment.SetEnvironmentVariable("SALVO_CHILD_PROCESS_TEST_INHERITED", null);
        }
    }

    [RequiresFact(Requirement.Linux | Requirement.TwoCpus)]
    public void Cpu_PinsTheProgramToThatCpu()
    {
        var cpu = Salvo.Perf.Measurement.CpuAffinity.AllowedCpus()[^1];
        using var child = ChildProcess.Start("sh", ["-c", "grep Cpus_allowed_list /proc/self/status"], new ChildProcessOptions { Cpu = cpu });

        var output = child.WaitForExit(TimeSpan.FromSeconds(30), CancellationToken.None);

        Assert.Equal(["taskset", "-c", cpu.ToString(System.Globalization.CultureInfo.InvariantCulture), "sh"], child.CommandLine.Take(4));
        Assert.Matches($@"^Cpus_allowed_list:\s+{cpu}$", output);
    }

    private static bool IsZombie(int pid) =>
        ProcFiles.ProcessStat(pid) is { } stat && stat[(stat.LastIndexOf(')') + 2)..].StartsWith('Z');
}
