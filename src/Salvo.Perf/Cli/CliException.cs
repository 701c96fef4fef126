namespace Salvo.Perf.Cli;

/// <summary>A problem with what the user asked for (or with the host) that ends the command with one line and a non-zero exit code.</summary>
internal sealed class CliException : Exception
{
    /// <summary>Exit code for bad input.</summary>
    public const int UsageExitCode = 2;

    /// <summary>Exit code for a run that could not be done (port in use, server unreachable).</summary>
    public const int FailureExitCode = 1;

    /// <summary>Exit code for a run cancelled with Ctrl+C: 128 + SIGINT (2), what shells report for a process SIGINT ended; SIGTERM gives 143 and SIGHUP 129 (<see cref="StopSignal.ExitCode"/>).</summary>
    public const int CancelledExitCode = 130;

    public CliException()
    {
    }

    public CliException(string message)
        : base(message)
    {
    }

    public CliException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public CliException(string message, int exitCode)
        : base(message) => ExitCode = exitCode;

    /// <summary>The process exit code.</summary>
    public int ExitCode { get; } = UsageExitCode;
}
