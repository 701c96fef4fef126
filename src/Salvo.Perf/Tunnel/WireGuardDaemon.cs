using System.Diagnostics.CodeAnalysis;
using Salvo.Perf.Cli;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Tunnel;

/// <summary>
/// The deprecated <c>salvo tunnel up/show/userspace</c>: one note naming the daemon's own program, then that program
/// in place of salvo (exec, not a child): the same process id, standard streams and parent, so each signal sent to
/// salvo is the daemon's, sent once (a terminal's Ctrl+C reaches a whole process group, and a child would hear it
/// twice, its second ending it before it takes its interface down), and the daemon's exit code is salvo's.
/// </summary>
internal static class WireGuardDaemon
{
    /// <summary>Becomes <c>wireguard-salvo <paramref name="arguments"/></c>; returns only by throwing.</summary>
    /// <exception cref="CliException">No daemon program, the kernel refused it, or the console is not this process's own.</exception>
    /// <exception cref="OperationCanceledException">A stop signal came before the daemon could take the process over.</exception>
    [DoesNotReturn]
    public static void Run(CliConsole console, string command, IReadOnlyList<string> arguments, CancellationToken stop)
    {
        // The daemon writes to file descriptors 1 and 2 itself; a console that is not this process's (a test's
        // writer) would see none of it, and the process it replaced would be the one running the test.
        if (console.OutputDescriptor is null)
        {
            throw new CliException($"tunnel {command}: hands this process over to wireguard-salvo, so it runs only as salvo's own process", CliException.FailureExitCode);
        }

        var daemon = DaemonProgram.Command();
        var replacement = command == "userspace" ? "wireguard-salvo [-f] IFACE" : $"wireguard-salvo {command}";
        console.Note($"salvo: 'salvo tunnel {command}' is deprecated and will be removed: use '{replacement}', the WireGuard daemon's own program");
        console.Error.Flush();
        console.Out.Flush();

        // salvo took a signal that came before the exec; the daemon would start without it and run on.
        stop.ThrowIfCancellationRequested();
        try
        {
            ProgramImage.Replace([.. daemon, .. arguments]);
        }
        catch (IOException e)
        {
            throw new CliException($"tunnel {command}: {e.Message}", CliException.FailureExitCode);
        }
    }
}
