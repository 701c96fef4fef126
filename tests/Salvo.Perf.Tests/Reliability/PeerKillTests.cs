using System.Diagnostics;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>
/// One side of a server/client test runs in a child process (<c>dotnet Salvo.Perf.dll</c>) and is killed by
/// its PID mid-stream; the side in this process keeps running, says what happened, and serves again.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class PeerKillTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [RequiresFact(Requirement.Linux)]
    public async Task Server_ClientProcessKilledMidStream_KeepsRunningReportsAndServesTheNextClient()
    {
        var output = new LiveWriter();
        var error = new LiveWriter();
        using var stop = new CancellationTokenSource();
        var server = Task.Run(() => SalvoCli.RunAsync(["server", "-p", "0"], new CliConsole(output, error, isTerminal: false), stop.Token));
        var port = Listening.Port(output.WaitFor("listening on", Bound));

        string childSaid;
        using (var child = StartSalvo("client", "127.0.0.1", "-p", port, "-t", "30", "-b", "2M", "-l", "512", "-i", "0.2"))
        {
            child.Output.WaitFor("Connected to", Bound);
            output.WaitFor("Accepted", Bound);
            Process.GetProcessById(child.Process.Id).Kill();
            Assert.True(child.Process.WaitForExit(Bound));
            childSaid = child.Output.Text;
        }

        Assert.True(Eventually.True(() => error.Text.Contains(" ended: ", StringComparison.Ordinal), Bound), $"server: {output.Text} {error.Text}; client: {childSaid}");

        // The reason is the kernel's word for the dead peer: end of stream, reset or broken pipe, depending on timing. A
        // client that went away sent nothing wrong: the server says its test ended, not that it rejected the client.
        Assert.Contains("salvo server: test with 127.0.0.1:", error.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("rejected", error.Text, StringComparison.Ordinal);
        Assert.False(server.IsCompleted, $"the server ended: {error.Text}");

        var next = await Cli.RunAsync("client", "127.0.0.1", "-p", port, "-t", "0.5", "-b", "1M", "-l", "512", "--json");
        Assert.True(next.ExitCode == 0, next.Error);
        Assert.Contains("\"receiver\"", next.Out, StringComparison.Ordinal);

        await stop.CancelAsync();
        Assert.Equal(CliException.CancelledExitCode, await server.WaitAsync(Bound));
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Client_ServerProcessKilledMidStream_EndsWithAnErrorInsteadOfHanging()
    {
        string port;
        var output = new LiveWriter();
        var error = new LiveWriter();
        using var child = StartSalvo("server", "-p", "0");
        port = Listening.Port(child.Output.WaitFor("listening on", Bound));
        var client = Task.Run(() => SalvoCli.RunAsync(["client", "127.0.0.1", "-p", port, "-t", "3", "-b", "2M", "-l", "512", "-i", "0.2"],
            new CliConsole(output, error, isTerminal: false)));
        output.WaitFor("Connected to", Bound);
        child.Output.WaitFor("Accepted", Bound);

        Process.GetProcessById(child.Process.Id).Kill();
        Assert.True(child.Process.WaitForExit(Bound));
        var exit = await client.WaitAsync(Bound);

        Assert.Equal(CliException.FailureExitCode, exit);
        Assert.StartsWith("salvo: error:", error.Text, StringComparison.Ordinal);
    }

    private static SalvoChild StartSalvo(params string[] args) => SalvoChild.Start(args);
}
