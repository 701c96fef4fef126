using System.Diagnostics;


namespace Salvo.WireGuard.Userspace;

/// <summary>
/// The detaching start of <c>wireguard-salvo IFACE</c>, wireguard-go's contract: the same command runs again in the
/// foreground (WG_PROCESS_FOREGROUND=1) with standard input closed and its output read here, and this process exits 0
/// once that one says its control socket is up, so the caller (wg-quick) configures it at once; or with that process's
/// exit code and its error lines when it fails first. wireguard-go opens the device and socket itself and hands their
/// descriptors down; here the foreground process opens them, so every error is its own and reported the same way.
/// Once this process has gone the other's output has no reader, and what it writes is dropped (the runtime ignores
/// SIGPIPE and a console write that gets EPIPE).
/// </summary>
internal static class UserspaceDetach
{
    /// <summary>The longest the foreground process may take to come up; it takes well under a second, the runtime's start included.</summary>
    private static readonly TimeSpan s_readyTimeout = TimeSpan.FromSeconds(30);

    public static async Task<int> RunAsync(DaemonConsole console, string interfaceName, CancellationToken cancellationToken)
    {
        var command = DaemonExecutable.Command();
        var start = new ProcessStartInfo(command[0])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            // A daemon holds no directory of its caller's open (wireguard-go's is the caller's; an unmount would find it busy).
            WorkingDirectory = "/",
        };
        foreach (var argument in command.Skip(1).Concat(["--foreground", interfaceName]))
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment[UserspaceCommand.ForegroundVariable] = "1";
        using var child = Process.Start(start) ?? throw new DaemonException($"could not start {command[0]}", DaemonException.FailureExitCode);
        child.StandardInput.Close();
        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var readyLine = UserspaceCommand.ReadyLine(interfaceName);
        child.ErrorDataReceived += (_, line) =>
        {
            if (line.Data is null)
            {
                return;
            }

            console.Note(line.Data);

            if (line.Data.StartsWith(readyLine, StringComparison.Ordinal))
            {
                ready.TrySetResult();
            }
        };
        child.OutputDataReceived += (_, _) => { };
        child.BeginErrorReadLine();
        child.BeginOutputReadLine();

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(s_readyTimeout);
        var exited = child.WaitForExitAsync(timeout.Token);
        var first = await Task.WhenAny(ready.Task, exited).ConfigureAwait(false);
        if (first == ready.Task)
        {
            return 0;
        }

        if (!child.HasExited)
        {
            // Only the child this call started, by its own handle.
            child.Kill();
            cancellationToken.ThrowIfCancellationRequested();
            throw new DaemonException($"{interfaceName} was not up within {s_readyTimeout.TotalSeconds:F0} s; stopped it", DaemonException.FailureExitCode);
        }

        // WaitForExitAsync returns once the output has been read to its end, so every error line is printed above.
        return child.ExitCode == 0 ? DaemonException.FailureExitCode : child.ExitCode;
    }
}
