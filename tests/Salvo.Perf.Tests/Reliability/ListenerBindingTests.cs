using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>What listens binds only where it was told: an echoing or answering UDP port open to the world is a reflector.</summary>
[Collection(WholeProcessCollection.Name)]
public sealed class ListenerBindingTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    /// <summary>Runs a listening command until <paramref name="stop"/> and waits for the port it says it listens on.</summary>
    private static (Task<int> Run, int Port) StartListening(string[] args, CancellationToken stop)
    {
        var output = new LiveWriter();
        var error = new LiveWriter();
        var run = Task.Run(() => SalvoCli.RunAsync(args, new CliConsole(output, error, isTerminal: false), stop));
        Assert.True(Eventually.True(() => Listening.Said(output.Text + error.Text), Bound), error.Text);
        return (run, int.Parse(Listening.Port(output.Text + error.Text), System.Globalization.CultureInfo.InvariantCulture));
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(CliException.CancelledExitCode, "server", "-p", "0")]
    [InlineData(CliException.CancelledExitCode, "server", "-p", "0", "-B", "127.0.0.1")]
    [InlineData(0, "transport", "--listen", "127.0.0.1:0", "-t", "60")]
    public async Task Listener_BindsLoopbackOnlyByDefaultOrAsTold(int exitWhenStopped, params string[] args)
    {
        using var stop = new CancellationTokenSource();
        var (run, port) = StartListening(args, stop.Token);

        var udp = ImpairRelayTests.Listeners("/proc/net/udp", port);
        var tcp = ImpairRelayTests.Listeners("/proc/net/tcp", port);
        await stop.CancelAsync();
        Assert.Equal(exitWhenStopped, await run.WaitAsync(Bound));

        Assert.Equal(["0100007F"], udp);
        Assert.Equal(["0100007F"], tcp);
        Assert.Empty(ImpairRelayTests.Listeners("/proc/net/udp6", port));
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(CliException.CancelledExitCode, "server", "-p", "0", "-B", "::")]
    [InlineData(0, "transport", "--listen", "[::]:0", "-t", "60")]
    [InlineData(0, "impair", "--listen", "[::]:0", "--forward", "127.0.0.1:9", "--tcp", "-t", "60", "--json")]
    public async Task Listener_OnIPv6Any_IsDualStackForTcpAndUdp(int exitWhenStopped, params string[] args)
    {
        using var stop = new CancellationTokenSource();
        var (run, port) = StartListening(args, stop.Token);

        // An IPv4 client reaches the TCP listener ...
        using (var tcp = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            await tcp.ConnectAsync(new IPEndPoint(IPAddress.Loopback, port)).WaitAsync(Bound);
        }

        // ... and the UDP socket holds the IPv4 port too: an IPv6-only one would leave 127.0.0.1:port free to bind.
        using (var udp = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp))
        {
            var bind = Assert.Throws<SocketException>(() => udp.Bind(new IPEndPoint(IPAddress.Loopback, port)));
            Assert.Equal(SocketError.AddressAlreadyInUse, bind.SocketErrorCode);
        }

        await stop.CancelAsync();
        Assert.Equal(exitWhenStopped, await run.WaitAsync(Bound));
    }
}
