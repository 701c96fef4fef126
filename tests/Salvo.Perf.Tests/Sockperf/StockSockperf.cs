using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Tests.Sockperf;

/// <summary>Runs the stock sockperf binary, each run bounded in time, and reads the counts it prints.</summary>
internal static partial class StockSockperf
{
    /// <summary>The longest any one sockperf run may take: its -t plus its 400 ms warm-up, with room for a busy machine.</summary>
    public static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    /// <summary>Where sockperf is, or null when it is not on PATH.</summary>
    public static string? Path { get; } = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
        .Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Select(directory => System.IO.Path.Combine(directory, "sockperf"))
        .FirstOrDefault(File.Exists);

    /// <summary>Runs a client to the end; returns its exit code and everything it printed.</summary>
    public static async Task<(int Exit, string Output)> RunAsync(params string[] arguments)
    {
        using var process = new Running(arguments);
        var exited = await process.WaitForExitAsync(Bound);
        Assert.True(exited, $"sockperf {string.Join(' ', arguments)} did not end within {Bound}: {process.Output}");
        return (process.ExitCode, process.Output);
    }

    /// <summary>The client's "[Total Run] ... SentMessages=N; ReceivedMessages=M" (ping-pong, under-load).</summary>
    public static (long Sent, long Received) TotalRun(string output)
    {
        var match = TotalRunLine().Match(output);
        Assert.True(match.Success, $"no [Total Run] line in: {output}");
        return (long.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture), long.Parse(match.Groups[2].Value, CultureInfo.InvariantCulture));
    }

    /// <summary>The throughput client's "Total of N messages sent".</summary>
    public static long ThroughputSent(string output)
    {
        var match = ThroughputLine().Match(output);
        Assert.True(match.Success, $"no 'Total of N messages sent' line in: {output}");
        return long.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
    }

    /// <summary>The server's "Total N messages received and handled", printed when it is interrupted.</summary>
    public static long ServerTotal(string output)
    {
        var match = ServerTotalLine().Match(output);
        Assert.True(match.Success, $"no 'Total N messages received and handled' line in: {output}");
        return long.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
    }

    [GeneratedRegex(@"\[Total Run\].*SentMessages=(\d+); ReceivedMessages=(\d+)")]
    private static partial Regex TotalRunLine();

    [GeneratedRegex(@"Total of (\d+) messages sent")]
    private static partial Regex ThroughputLine();

    [GeneratedRegex(@"Total (\d+) messages received and handled")]
    private static partial Regex ServerTotalLine();

    /// <summary>A sockperf process with its output captured; killed on dispose if still running.</summary>
    internal sealed class Running : IDisposable
    {
        private readonly Process _process;
        private readonly StringBuilder _output = new();

        public Running(params string[] arguments)
        {
            var start = new ProcessStartInfo(Path ?? "sockperf")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (var argument in arguments)
            {
                start.ArgumentList.Add(argument);
            }

            _process = new Process { StartInfo = start };
            _process.OutputDataReceived += (_, e) => Append(e.Data);
            _process.ErrorDataReceived += (_, e) => Append(e.Data);
            _process.Start();
            _process.BeginOutputReadLine();
            _process.BeginErrorReadLine();
        }

        public int ExitCode => _process.ExitCode;

        public string Output
        {
            get
            {
                lock (_output)
                {
                    return _output.ToString();
                }
            }
        }

        public async Task<bool> WaitForExitAsync(TimeSpan bound)
        {
            using var timeout = new CancellationTokenSource(bound);
            try
            {
                await _process.WaitForExitAsync(timeout.Token);
                return true;
            }
            catch (OperationCanceledException)
            {
                return false;
            }
        }

        /// <summary>Waits until the output contains <paramref name="text"/>, within <see cref="Bound"/>.</summary>
        public async Task<bool> WaitForOutputAsync(string text)
        {
            var stopwatch = Stopwatch.StartNew();
            while (stopwatch.Elapsed < Bound && !_process.HasExited)
            {
                if (Output.Contains(text, StringComparison.Ordinal))
                {
                    return true;
                }

                await Task.Delay(20);
            }

            return Output.Contains(text, StringComparison.Ordinal);
        }

        /// <summary>Sends SIGINT (sockperf's server prints its totals on it) and waits for the exit.</summary>
        public async Task<bool> InterruptAsync()
        {
            using (var kill = Process.Start("kill", ["-INT", _process.Id.ToString(CultureInfo.InvariantCulture)]))
            {
                await kill.WaitForExitAsync();
            }

            return await WaitForExitAsync(Bound);
        }

        public void Dispose()
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(Bound);
            }

            _process.Dispose();
        }

        private void Append(string? line)
        {
            if (line is null)
            {
                return;
            }

            lock (_output)
            {
                _output.AppendLine(line);
            }
        }
    }
}
