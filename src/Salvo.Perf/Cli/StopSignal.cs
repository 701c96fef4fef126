namespace Salvo.Perf.Cli;

/// <summary>A signal that asks a run to stop, with its POSIX number (signal(7); the same on Linux and macOS).</summary>
/// <param name="Name">SIGINT, SIGTERM or SIGHUP.</param>
/// <param name="Number">The signal's number: 2, 15 or 1.</param>
internal readonly record struct StopSignal(string Name, int Number)
{
    /// <summary>Ctrl+C.</summary>
    public static StopSignal Interrupt { get; } = new("SIGINT", 2);

    /// <summary>kill's default, and what systemd, docker stop and Kubernetes send first.</summary>
    public static StopSignal Terminate { get; } = new("SIGTERM", 15);

    /// <summary>The controlling terminal went away (an ssh session closed).</summary>
    public static StopSignal Hangup { get; } = new("SIGHUP", 1);

    /// <summary>The exit code of a run this signal cut short: 128 + the number, what a shell reports for a process the signal killed (130, 143, 129).</summary>
    public int ExitCode => 128 + Number;
}
