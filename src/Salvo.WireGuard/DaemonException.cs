namespace Salvo.WireGuard;

/// <summary>A problem with what was asked (or with the host) that ends the command with one line and a non-zero exit code.</summary>
internal sealed class DaemonException : Exception
{
    /// <summary>Exit code for bad input: an unknown command, a missing file, a bad name.</summary>
    public const int UsageExitCode = 2;

    /// <summary>Exit code for a run that could not be done (the kernel refused, a data loop ended).</summary>
    public const int FailureExitCode = 1;

    public DaemonException()
    {
    }

    public DaemonException(string message)
        : base(message)
    {
    }

    public DaemonException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public DaemonException(string message, int exitCode)
        : base(message) => ExitCode = exitCode;

    /// <summary>The process exit code.</summary>
    public int ExitCode { get; } = UsageExitCode;
}
