using Salvo.Perf.Platform;

namespace Salvo.Perf.Connections;

/// <summary>A shard: this same program started again as <c>salvo connections shard-…</c>, driven over its standard streams.</summary>
internal sealed class ShardProcess : IDisposable
{
    private readonly ChildProcess _process;

    private ShardProcess(ChildProcess process) => _process = process;

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
        // Not inherited when off either: the run's settings say what the shards ran with.
        var environment = new Dictionary<string, string?> { [InlineCompletionsVariable] = inlineCompletions ? "1" : null };
        return new ShardProcess(ChildProcess.Start(host, [assembly, .. arguments], new ChildProcessOptions { Environment = environment, Name = "a connections shard" }));
    }

    public Task SendAsync(string command) => _process.WriteLineAsync(command);

    /// <summary>Reads lines until one starts with <paramref name="keyword"/>; returns the rest of it.</summary>
    /// <exception cref="TimeoutException">None came in time, or the shard exited.</exception>
    public async Task<string> ExpectAsync(string keyword, TimeSpan timeout) =>
        await _process.ExpectAsync(keyword, timeout).ConfigureAwait(false)
            ?? throw new TimeoutException($"connections shard {_process.Id} sent no '{keyword}' within {timeout.TotalSeconds:F0} s");

    /// <summary>Asks the shard to quit without waiting (so that many shards stop together).</summary>
    public void RequestQuit()
    {
        if (!_process.HasExited)
        {
            // False when the shard already closed its input.
            _process.TryWriteLine(ShardProtocol.Quit);
        }
    }

    /// <summary>Asks the shard to quit; ends it (by its PID) if it has not within 30 s.</summary>
    public void Dispose()
    {
        if (!_process.HasExited && _process.TryWriteLine(ShardProtocol.Quit))
        {
            _process.WaitForExit(TimeSpan.FromSeconds(30));
        }

        _process.Dispose();
    }
}
