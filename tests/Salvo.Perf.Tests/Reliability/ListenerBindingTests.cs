using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>What listens binds only where it was told: an echoing or answering UDP port open to the world is a reflector.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ListenerBindingTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [LinuxOnlyTheory]
    [InlineData(CliException.CancelledExitCode, "server", "-p", "0")]
    [InlineData(CliException.CancelledExitCode, "server", "-p", "0", "-B", "127.0.0.1")]
    [InlineData(0, "transport", "--listen", "127.0.0.1:0", "-t", "60")]
    public async Task Listener_BindsLoopbackOnlyByDefaultOrAsTold(int exitWhenStopped, params string[] args)
    {
        using var stop = new CancellationTokenSource();
        var output = new LiveWriter();
        var error = new LiveWriter();
        var run = Task.Run(() => SalvoCli.RunAsync(args, new CliConsole(output, error, isTerminal: false), stop.Token));
        Assert.True(Eventually.True(() => Listening.Said(output.Text + error.Text), Bound), error.Text);
        var port = int.Parse(Listening.Port(output.Text + error.Text), System.Globalization.CultureInfo.InvariantCulture);

        var udp = ImpairRelayTests.Listeners("/proc/net/udp", port);
        var tcp = ImpairRelayTests.Listeners("/proc/net/tcp", port);
        await stop.CancelAsync();
        Assert.Equal(exitWhenStopped, await run.WaitAsync(Bound));

        Assert.Equal(["0100007F"], udp);
        Assert.Equal(["0100007F"], tcp);
        Assert.Empty(ImpairRelayTests.Listeners("/proc/net/udp6", port));
    }
}
