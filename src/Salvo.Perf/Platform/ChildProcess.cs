using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace Salvo.Perf.Platform;

/// <summary>
/// Every program the CLI starts goes through here: an argument list (never a shell line), optionally inside a network
/// namespace (<c>ip netns exec NS</c>) and pinned to one CPU (<c>taskset -c CPU</c>); both replace themselves with the
/// next program, so the handle and <see cref="Id"/> are the command's own. What it prints is kept line by line up to a
/// bound; every wait is bounded; disposing kills it by its process id if it still runs.
/// </summary>
internal sealed class ChildProcess : IDisposable
{
    /// <summary>Lines kept of each stream; what comes later is counted in <see cref="DroppedLines"/>, not kept.</summary>
    public const int MaxLines = 4_000;

    /// <summary>Characters kept of each stream: a long iperf3 -J document is about 100 KB.</summary>
    public const int MaxCharacters = 4 << 20;

    private readonly Process _process;
    private readonly KeptLines _output = new();
    private readonly KeptLines _error = new();
    private readonly ConcurrentQueue<string> _unread = new();
    private readonly SemaphoreSlim _lineArrived = new(0);
    private readonly string _name;
    private int _dropped;

    private ChildProcess(Process process, string name, IReadOnlyList<string> commandLine)
    {
        _process = process;
        _name = name;
        CommandLine = commandLine;
    }

    /// <summary>The process id of the command itself.</summary>
    public int Id => _process.Id;

    /// <summary>The full command line as started, namespace and CPU prefix included.</summary>
    public IReadOnlyList<string> CommandLine { get; }

    public bool HasExited => _process.HasExited;

    /// <summary>Its exit code; only once <see cref="HasExited"/>.</summary>
    public int ExitCode => _process.ExitCode;

    /// <summary>Lines it printed past <see cref="MaxLines"/> or <see cref="MaxCharacters"/>.</summary>
    public int DroppedLines => Volatile.Read(ref _dropped);

    /// <summary>Everything kept so far: standard output, then standard error.</summary>
    public string Output => Join(_output.Snapshot(), _error.Snapshot());

    /// <summary>
    /// Starts <paramref name="program"/> with <paramref name="arguments"/>.
    /// </summary>
    /// <param name="program">The program: a name found on PATH, or a path.</param>
    /// <param name="arguments">Its arguments, each passed as it is.</param>
    /// <param name="options">Namespace, CPU, environment and standard input; none of them when null.</param>
    /// <exception cref="InvalidOperationException">The program could not be started.</exception>
    public static ChildProcess Start(string program, IEnumerable<string> arguments, ChildProcessOptions? options = null)
    {
        options ??= new ChildProcessOptions();
        List<string> commandLine = [];
        if (options.Namespace is { } host)
        {
            commandLine.AddRange(["ip", "netns", "exec", host]);
        }

        if (options.Cpu is { } cpu)
        {
            commandLine.AddRange(["taskset", "-c", cpu.ToString(CultureInfo.InvariantCulture)]);
        }

        commandLine.Add(program);
        commandLine.AddRange(arguments);
        var start = new ProcessStartInfo(commandLine[0])
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
        };
        foreach (var argument in commandLine.Skip(1))
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (variable, value) in options.Environment)
        {
            if (value is null)
            {
                start.Environment.Remove(variable);
            }
            else
            {
                start.Environment[variable] = value;
            }
        }

        var name = options.Name ?? program;
        var process = Process.Start(start) ?? throw new InvalidOperationException($"could not start {name}");
        var started = new ChildProcess(process, name, commandLine);
        process.OutputDataReceived += (_, line) => started.Keep(started._output, line.Data, unread: true);
        process.ErrorDataReceived += (_, line) => started.Keep(started._error, line.Data, unread: false);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return started;
    }

    /// <summary>
    /// Runs <paramref name="program"/> to its end, at most <paramref name="timeoutSeconds"/> (then it is killed and the
    /// exit code is -1); returns its exit code and output (standard output, then standard error).
    /// </summary>
    public static (int ExitCode, string Output) Run(string program, IEnumerable<string> arguments, int timeoutSeconds = 10, string? inNamespace = null)
    {
        ChildProcess child;
        try
        {
            child = Start(program, arguments, new ChildProcessOptions { Namespace = inNamespace });
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return (-1, $"could not start {program}: {e.Message}");
        }

        using (child)
        {
            child._process.StandardInput.Close();
            var output = child.WaitForExit(TimeSpan.FromSeconds(timeoutSeconds), CancellationToken.None);
            return output is null ? (-1, $"ran past {timeoutSeconds} s") : (child.ExitCode, output);
        }
    }

    /// <summary>Writes one line to its standard input.</summary>
    /// <exception cref="IOException">It closed its input (it has ended).</exception>
    public async Task WriteLineAsync(string line)
    {
        await _process.StandardInput.WriteLineAsync(line).ConfigureAwait(false);
        await _process.StandardInput.FlushAsync().ConfigureAwait(false);
    }

    /// <summary>Writes one line to its standard input; false when it has closed it.</summary>
    public bool TryWriteLine(string line)
    {
        try
        {
            _process.StandardInput.WriteLine(line);
            _process.StandardInput.Flush();
            return true;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>
    /// The rest of the next line on standard output that starts with <paramref name="keyword"/> and a space; lines
    /// before it are passed over. Null when none came within <paramref name="timeout"/> or the process ended first.
    /// </summary>
    public async Task<string?> ExpectAsync(string keyword, TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            while (_unread.TryDequeue(out var line))
            {
                if (line.StartsWith(keyword + " ", StringComparison.Ordinal))
                {
                    return line[(keyword.Length + 1)..];
                }
            }

            if (_process.HasExited && _unread.IsEmpty)
            {
                _process.WaitForExit();
                if (_unread.IsEmpty)
                {
                    return null;
                }

                continue;
            }

            var left = timeout - deadline.Elapsed;
            if (left > TimeSpan.Zero)
            {
                // Woken by each line; the 100 ms bound notices an exit that printed nothing.
                await _lineArrived.WaitAsync(left < TimeSpan.FromMilliseconds(100) ? left : TimeSpan.FromMilliseconds(100)).ConfigureAwait(false);
            }
        }

        return null;
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for a line that contains <paramref name="marker"/> (the process is ready);
    /// null when it came, else why not: the process ended first or the time ran out.
    /// </summary>
    public string? WaitForLine(string marker, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.StartNew();
        while (!Printed(marker))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (_process.HasExited)
            {
                // The last lines may still be on their way through the asynchronous readers.
                _process.WaitForExit();
                return Printed(marker) ? null : $"{_name} exited with {_process.ExitCode}: {Reason()}";
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

        // Without a timeout this also waits for the asynchronous readers to reach the end of both streams.
        _process.WaitForExit();
        return Output;
    }

    /// <summary>Waits up to <paramref name="timeout"/> for it to end on its own; true when it has.</summary>
    public bool WaitForExit(TimeSpan timeout) => _process.WaitForExit(timeout);

    /// <summary>Ends the process now (SIGKILL, by its process id) and waits, bounded, until it is gone.</summary>
    public void Stop()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(5_000);
            }
        }
        catch (InvalidOperationException)
        {
            // It ended between the check and the kill.
        }
    }

    /// <summary>The last line it printed with "error" in it ("salvo: error: ...", "udplimit: ..."), else its last line.</summary>
    public string Reason()
    {
        var lines = _output.Snapshot().Concat(_error.Snapshot()).ToArray();
        var error = lines.LastOrDefault(line => line.Contains("error", StringComparison.OrdinalIgnoreCase)) ?? lines.LastOrDefault();
        return error?.Trim() ?? "no output";
    }

    /// <summary>Its last <paramref name="count"/> lines, standard output then standard error, joined with " | ".</summary>
    public string LastLines(int count) => string.Join(" | ", _output.Snapshot().Concat(_error.Snapshot()).TakeLast(count));

    public void Dispose()
    {
        Stop();
        _process.Dispose();
        _lineArrived.Dispose();
    }

    private static string Join(IReadOnlyList<string> output, IReadOnlyList<string> error) =>
        error.Count == 0 ? string.Join('\n', output) : output.Count == 0 ? string.Join('\n', error) : string.Join('\n', output) + "\n" + string.Join('\n', error);

    private bool Printed(string marker) =>
        _output.Snapshot().Any(line => line.Contains(marker, StringComparison.Ordinal)) || _error.Snapshot().Any(line => line.Contains(marker, StringComparison.Ordinal));

    private void Keep(KeptLines stream, string? line, bool unread)
    {
        if (line is null)
        {
            return;
        }

        if (!stream.TryAdd(line))
        {
            Interlocked.Increment(ref _dropped);
            return;
        }

        if (unread)
        {
            _unread.Enqueue(line);
            _lineArrived.Release();
        }
    }

    /// <summary>One stream's kept lines, bounded in lines and characters.</summary>
    private sealed class KeptLines
    {
        private readonly List<string> _lines = [];
        private long _characters;

        public bool TryAdd(string line)
        {
            lock (_lines)
            {
                if (_lines.Count >= MaxLines || _characters + line.Length > MaxCharacters)
                {
                    return false;
                }

                _lines.Add(line);
                _characters += line.Length;
                return true;
            }
        }

        public string[] Snapshot()
        {
            lock (_lines)
            {
                return [.. _lines];
            }
        }
    }
}
