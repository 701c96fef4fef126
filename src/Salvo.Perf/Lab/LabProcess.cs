using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace Salvo.Perf.Lab;

/// <summary>
/// One end of a lab point: a command run inside a namespace pinned to one CPU (<c>ip netns exec NS taskset -c CPU
/// COMMAND</c>; both replace themselves, so the handle is the command's own process). Its output is kept line by
/// line; every wait is bounded; disposing kills it by its own handle if it still runs.
/// </summary>
internal sealed class LabProcess : IDisposable
{
    private const int MaxLines = 2_000;

    private readonly Process _process;
    private readonly ConcurrentQueue<string> _lines = new();
    private readonly string _name;

    private LabProcess(Process process, string name)
    {
        _process = process;
        _name = name;
    }

    /// <summary>Starts <paramref name="command"/> in namespace <paramref name="host"/> on CPU <paramref name="cpu"/>.</summary>
    public static LabProcess Start(string host, int cpu, IReadOnlyList<string> command, string name)
    {
        var start = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        foreach (var argument in (string[])["netns", "exec", host, "taskset", "-c", cpu.ToString(CultureInfo.InvariantCulture), .. command])
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"lab: could not start {name}");
        var started = new LabProcess(process, name);
        process.OutputDataReceived += (_, line) => started.Keep(line.Data);
        process.ErrorDataReceived += (_, line) => started.Keep(line.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return started;
    }

    /// <summary>Everything it printed so far, one line each.</summary>
    public string Output => string.Join('\n', _lines);

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for a line that contains <paramref name="marker"/> (the end is ready);
    /// null when it came, else why not: the process ended first or the time ran out.
    /// </summary>
    public string? WaitForLine(string marker, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.StartNew();
        while (!_lines.Any(line => line.Contains(marker, StringComparison.Ordinal)))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (_process.HasExited)
            {
                // The last lines may still be on their way through the asynchronous readers.
                _process.WaitForExit();
                return _lines.Any(line => line.Contains(marker, StringComparison.Ordinal)) ? null : $"{_name} exited with {_process.ExitCode}: {Reason()}";
            }

            if (deadline.Elapsed > timeout)
            {
                return $"{_name} was not ready within {timeout.TotalSeconds:0} s: {Reason()}";
            }

            Thread.Sleep(10);
        }

        return null;
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for the process to end on its own and returns its output; a process
    /// still running then is killed, and null returned.
    /// </summary>
    public string? WaitForExit(TimeSpan timeout, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.StartNew();
        while (!_process.HasExited)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (deadline.Elapsed > timeout)
            {
                Stop();
                return null;
            }

            Thread.Sleep(10);
        }

        _process.WaitForExit();
        return Output;
    }

    /// <summary>Ends the process now (SIGKILL, by its own handle) and waits, bounded, until it is gone.</summary>
    public void Stop()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit(5_000);
        }
    }

    /// <summary>The last error line it printed ("salvo: error: ...", "udplimit: ..."), else its last line.</summary>
    public string Reason()
    {
        var lines = _lines.ToArray();
        var error = lines.LastOrDefault(line => line.Contains("error", StringComparison.OrdinalIgnoreCase)) ?? lines.LastOrDefault();
        return error?.Trim() ?? "no output";
    }

    public void Dispose()
    {
        Stop();
        _process.Dispose();
    }

    private void Keep(string? line)
    {
        if (line is not null && _lines.Count < MaxLines)
        {
            _lines.Enqueue(line);
        }
    }
}
