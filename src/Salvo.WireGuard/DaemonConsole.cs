namespace Salvo.WireGuard;

/// <summary>Where the daemon writes: data (the status of 'show') on <see cref="Out"/>, every note, warning and log line on <see cref="Error"/>.</summary>
internal sealed class DaemonConsole(TextWriter output, TextWriter error)
{
    /// <summary>The process's own standard output and error.</summary>
    public static DaemonConsole Standard() => new(Console.Out, Console.Error);

    /// <summary>Standard output: what 'show' prints.</summary>
    public TextWriter Out { get; } = output;

    /// <summary>Standard error: notes, warnings and the tunnel's log.</summary>
    public TextWriter Error { get; } = error;

    /// <summary>One line on standard error, whole even when the tunnel's log writes at the same time.</summary>
    public void Note(string text)
    {
        lock (Error)
        {
            Error.WriteLine(text);
        }
    }
}
