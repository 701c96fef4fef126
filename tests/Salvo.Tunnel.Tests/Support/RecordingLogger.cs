using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>Keeps every formatted log entry (thread-safe), so tests can read what was logged and why.</summary>
internal sealed class RecordingLogger : ILogger
{
    private readonly ConcurrentQueue<string> _entries = new();

    public IReadOnlyList<string> Entries => [.. _entries];

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        ArgumentNullException.ThrowIfNull(formatter);
        _entries.Enqueue($"{logLevel}: {formatter(state, exception)}");
    }

    public int CountContaining(string text) => _entries.Count(entry => entry.Contains(text, StringComparison.Ordinal));
}
