using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>Ctrl+C for real: SIGINT sent by PID to a salvo child process, which must end as cancelled (exit 130).</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class InterruptTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [RequiresFact(Requirement.Linux)]
    public void Server_SigintWhileListening_ExitsWith130AndSaysCancelled()
    {
        using var child = SalvoChild.Start(["server", "-p", "0", "-i", "0"], interruptible: true);
        child.Output.WaitFor("listening on", Bound);

        child.Interrupt();

        Assert.True(child.Process.WaitForExit(Bound), $"the server did not end on SIGINT: {child.Output.Text}");
        child.Process.WaitForExit();
        Assert.Equal(CliException.CancelledExitCode, child.Process.ExitCode);
        Assert.Contains("salvo: cancelled", child.Output.Text, StringComparison.Ordinal);
    }
}
