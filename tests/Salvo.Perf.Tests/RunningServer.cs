using System.Net;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;
using Salvo.Perf.Traffic;

namespace Salvo.Perf.Tests;

/// <summary>A <c>salvo server</c> on an ephemeral loopback port in this process, stopped on dispose.</summary>
internal sealed partial class RunningServer : IAsyncDisposable
{
    private readonly StringWriter _output = new();
    private readonly StringWriter _error = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly TextWriter _syncOutput;
    private readonly TextWriter _syncError;
    private Task<int>? _run;

    private RunningServer()
    {
        // Synchronized writers lock on themselves; reads below take the same locks.
        _syncOutput = TextWriter.Synchronized(_output);
        _syncError = TextWriter.Synchronized(_error);
    }

    public int Port { get; private set; }

    public string Errors
    {
        get
        {
            lock (_syncError)
            {
                return _error.ToString();
            }
        }
    }

    public string Output
    {
        get
        {
            lock (_syncOutput)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>Starts the test server (one worker, no interval lines).</summary>
    public static Task<RunningServer> StartAsync() =>
        StartAsync((console, stop) => ServerCommand.RunAsync(console, IPAddress.Loopback, 0, 1, 0, false, stop));

    /// <summary>Starts <paramref name="run"/> and waits for its "listening on 127.0.0.1:PORT" line.</summary>
    public static async Task<RunningServer> StartAsync(Func<CliConsole, CancellationToken, Task<int>> run)
    {
        var server = new RunningServer();
        var console = new CliConsole(server._syncOutput, server._syncError, isTerminal: false);
        server._run = Task.Run(() => run(console, server._stop.Token));
        for (var i = 0; i < 600 && server.Port == 0; i++)
        {
            if (server._run.IsCompleted)
            {
                Assert.Fail($"the server stopped: {server._run.Exception?.GetBaseException().Message} {server.Errors}");
            }

            await Task.Delay(50);
            var match = ListeningLine().Match(server.Output);
            server.Port = match.Success ? int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) : 0;
        }

        Assert.NotEqual(0, server.Port);
        return server;
    }

    public async Task<bool> WaitForErrorAsync(string text)
    {
        for (var i = 0; i < 600; i++)
        {
            if (Errors.Contains(text, StringComparison.Ordinal))
            {
                return true;
            }

            await Task.Delay(50);
        }

        return false;
    }

    /// <summary>Stops the server (as Ctrl+C does) and returns everything it printed on stdout.</summary>
    public async Task<string> StopAsync()
    {
        await _stop.CancelAsync();
        if (_run is not null)
        {
            await _run.WaitAsync(TimeSpan.FromSeconds(30));
        }

        return Output;
    }

    public async ValueTask DisposeAsync()
    {
        await StopAsync();
        _stop.Dispose();
        _output.Dispose();
        _error.Dispose();
    }

    [GeneratedRegex(@"listening on 127\.0\.0\.1:(\d+)")]
    private static partial Regex ListeningLine();
}
