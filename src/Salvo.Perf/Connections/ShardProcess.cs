using System.Diagnostics;

namespace Salvo.Perf.Connections;

/// <summary>A shard: this same program started again as <c>salvo connections shard-…</c>, driven over its standard streams.</summary>
internal sealed class ShardProcess : IDisposable
{
    private readonly Process _process;

    private ShardProcess(Process process) => _process = process;

    public int Id => _process.Id;

    /// <summary>
    /// The runtime's switch that runs socket completions on its epoll threads instead of queueing them to the thread
    /// pool. Read once at start-up, so it can only be set for a process about to start.
    /// </summary>
    public const string InlineCompletionsVariable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    /// <summary>Starts <c>salvo</c> with <paramref name="arguments"/> through the same .NET host as this process.</summary>
    /// <param name="arguments">The command line after the program.</param>
    /// <param name="inlineCompletions">Set <see cref="InlineCompletionsVariable"/> for the shard.</param>
    public static ShardProcess Start(IEnumerable<string> arguments, bool inlineCompletions = false)
    {
        var assembly = typeof(ShardProcess).Assembly.Location;
        var host = Environment.ProcessPath is { } path && Path.GetFileNameWithoutExtension(path) == "dotnet" ? path : "dotnet";
        var start = new ProcessStartInfo(host)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (inlineCompletions)
        {
            start.Environment[InlineCompletionsVariable] = "1";
        }
        else
        {
            // Not inherited either: the run's settings say what the shards ran with.
            start.Environment.Remove(InlineCompletionsVariable);
        }

        start.ArgumentList.Add(assembly);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException("could not start a connections shard");
        process.ErrorDataReceived += (_, _) => { };
        process.BeginErrorReadLine();
        return new ShardProcess(process);
    }

    public async Task SendAsync(string command)
    {
        await _process.StandardInput.WriteLineAsync(command).ConfigureAwait(false);
        await _process.StandardInput.FlushAsync().ConfigureAwait(false);
    }

    /// <summary>Reads lines until one starts with <paramref name="keyword"/>; returns the rest of it.</summary>
    /// <exception cref="TimeoutException">None came in time, or the shard exited.</exception>
    public async Task<string> ExpectAsync(string keyword, TimeSpan timeout)
    {
        using var cancellation = new CancellationTokenSource(timeout);
        try
        {
            while (await _process.StandardOutput.ReadLineAsync(cancellation.Token).ConfigureAwait(false) is { } line)
            {
                if (line.StartsWith(keyword + " ", StringComparison.Ordinal))
                {
                    return line[(keyword.Length + 1)..];
                }
            }
        }
        catch (OperationCanceledException)
        {
        }

        throw new TimeoutException($"connections shard {_process.Id} sent no '{keyword}' within {timeout.TotalSeconds:F0} s");
    }

    /// <summary>Asks the shard to quit without waiting (so that many shards stop together).</summary>
    public void RequestQuit()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.StandardInput.WriteLine(ShardProtocol.Quit);
                _process.StandardInput.Flush();
            }
        }
        catch (IOException)
        {
            // The shard already closed its input.
        }
    }

    /// <summary>Asks the shard to quit; ends it (by its PID) if it has not within 30 s.</summary>
    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.StandardInput.WriteLine(ShardProtocol.Quit);
                _process.StandardInput.Flush();
                if (!_process.WaitForExit(30_000))
                {
                    _process.Kill();
                }
            }
        }
        catch (IOException)
        {
            // The shard already closed its input.
        }
        finally
        {
            _process.Dispose();
        }
    }
}
