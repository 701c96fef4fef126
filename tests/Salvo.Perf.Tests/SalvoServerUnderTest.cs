using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

/// <summary>'salvo server' on an ephemeral loopback port in this process, printing one JSON line per test (Salvo's and iperf3's); stopped on dispose.</summary>
internal sealed partial class SalvoServerUnderTest : IAsyncDisposable
{
    private readonly StringWriter _output = new();
    private readonly StringWriter _error = new();
    private readonly TextWriter _syncOutput;
    private readonly TextWriter _syncError;
    private readonly CancellationTokenSource _stop = new();
    private Task<int>? _run;

    private SalvoServerUnderTest()
    {
        _syncOutput = TextWriter.Synchronized(_output);
        _syncError = TextWriter.Synchronized(_error);
    }

    public int Port { get; private set; }

    /// <summary>The server's log (notes and refusals).</summary>
    public string Log
    {
        get
        {
            lock (_syncError)
            {
                return _error.ToString();
            }
        }
    }

    /// <summary>Whether the server's run has ended.</summary>
    public bool Stopped => _run!.IsCompleted;

    /// <summary>Everything printed on stdout so far.</summary>
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

    /// <summary>
    /// Starts the server. JSON-stream output (the default) puts one report line per test on stdout and the
    /// listening line on the log; text output puts both on stdout.
    /// </summary>
    /// <param name="address">-B.</param>
    /// <param name="oneOff">-1.</param>
    /// <param name="backend">--backend.</param>
    /// <param name="format">Text or JSON stream.</param>
    /// <param name="options">More options, as on the command line.</param>
    public static async Task<SalvoServerUnderTest> StartAsync(
        IPAddress? address = null, bool oneOff = false, DatagramBackend backend = DatagramBackend.Auto, OutputFormat format = OutputFormat.JsonStream,
        IReadOnlyList<string>? options = null)
    {
        var server = new SalvoServerUnderTest();
        var console = new CliConsole(server._syncOutput, server._syncError, isTerminal: false);
        // Through the command line, as a user runs it: Ctrl+C (the stop token) then ends it with exit code 130.
        var args = new List<string> { "server", "-p", "0", "-i", "0", "-B", (address ?? IPAddress.Loopback).ToString(), "--backend", BackendName(backend) };
        if (oneOff)
        {
            args.Add("-1");
        }

        if (format == OutputFormat.JsonStream)
        {
            args.Add("--json-stream");
        }

        args.AddRange(options ?? []);

        server._run = Task.Run(() => SalvoCli.RunAsync([.. args], console, server._stop.Token));
        for (var i = 0; i < 600 && server.Port == 0; i++)
        {
            Assert.False(server._run.IsCompleted, $"the server stopped: {server._run.Exception?.GetBaseException().Message} {server.Log}");
            await Task.Delay(25);
            var match = Listening().Match(format == OutputFormat.Text ? server.Output : server.Log);
            server.Port = match.Success ? int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) : 0;
        }

        Assert.NotEqual(0, server.Port);
        return server;
    }

    /// <summary>The test reports printed so far, oldest first.</summary>
    public IReadOnlyList<JsonElement> Reports()
    {
        string text;
        lock (_syncOutput)
        {
            text = _output.ToString();
        }

        return text.Split('\n').Where(l => l.Contains("\"command\":\"server\"", StringComparison.Ordinal))
            .Select(l => JsonDocument.Parse(l).RootElement.Clone()).ToArray();
    }

    /// <summary>Waits up to 30 s for the <paramref name="count"/>-th report (the server prints it after the results exchange).</summary>
    public async Task<JsonElement> ReportAsync(int count)
    {
        for (var i = 0; i < 1200; i++)
        {
            if (Reports() is { } reports && reports.Count >= count)
            {
                return reports[count - 1];
            }

            await Task.Delay(25);
        }

        Assert.Fail($"no report {count} from the server; log: {Log}");
        return default;
    }

    /// <summary>Waits up to 30 s for <paramref name="text"/> on the server's log.</summary>
    public async Task<bool> WaitForLogAsync(string text)
    {
        for (var i = 0; i < 1200; i++)
        {
            if (Log.Contains(text, StringComparison.Ordinal))
            {
                return true;
            }

            await Task.Delay(25);
        }

        return false;
    }

    /// <summary>Stops the server (as Ctrl+C does) and returns everything it printed on stdout.</summary>
    public async Task<string> StopAsync()
    {
        await _stop.CancelAsync();
        await _run!.WaitAsync(TimeSpan.FromSeconds(30));
        return Output;
    }

    /// <summary>Waits (bounded) for the server to end and returns its exit code: 0 after its one test (-1), 130 when stopped.</summary>
    public Task<int> StoppedAsync() => _run!.WaitAsync(TimeSpan.FromSeconds(30));

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        if (_run is not null)
        {
            Assert.Contains(await _run.WaitAsync(TimeSpan.FromSeconds(30)), new[] { 0, CliException.CancelledExitCode });
        }

        _stop.Dispose();
        _output.Dispose();
        _error.Dispose();
    }

    /// <summary>The --backend name; LinuxBatched is the one left, and off Linux the CLI refuses "linux" itself.</summary>
    private static string BackendName(DatagramBackend backend) => backend switch
    {
        DatagramBackend.Auto => "auto",
        DatagramBackend.Portable => "portable",
        _ => "linux",
    };

    [GeneratedRegex(@"listening on \S*:(\d+)")]
    private static partial Regex Listening();
}
