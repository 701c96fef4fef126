using Microsoft.Extensions.Logging;

namespace Salvo.WireGuard;

/// <summary>
/// The tunnel's log on standard error, one line per entry (<c>wireguard-salvo: warning: ...</c>), Information and above:
/// why a handshake or packet was refused, and each completed handshake. Standard output stays free for data.
/// </summary>
internal sealed class ConsoleLineLogger(TextWriter error) : ILogger
{
    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information && logLevel != LogLevel.None;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (!IsEnabled(logLevel))
        {
            return;
        }

        var line = $"wireguard-salvo: {logLevel.ToString().ToLowerInvariant()}: {formatter(state, exception)}";
        lock (error)
        {
            error.WriteLine(line);
        }
    }
}
