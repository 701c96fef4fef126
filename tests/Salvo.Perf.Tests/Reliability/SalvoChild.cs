using System.Diagnostics;

namespace Salvo.Perf.Tests.Reliability;

/// <summary>A salvo child process (<c>dotnet Salvo.Perf.dll ...</c>, or another dll through <see cref="StartDll"/>) with its stdout and stderr in one live text; disposing kills it if it still runs.</summary>
internal sealed record SalvoChild(Process Process, LiveWriter Output) : IDisposable
{
    /// <summary>
    /// Starts salvo with <paramref name="args"/>, through <c>env --default-signal=HUP</c>: a test run under nohup
    /// passes SIGHUP on ignored (exec keeps SIG_IGN, and salvo leaves an inherited ignore alone), and then the SIGHUP
    /// a test sends would never arrive. With <paramref name="interruptible"/> SIGINT is reset too
    /// (<c>--default-signal=INT,HUP</c>): a process started in the background inherits SIGINT ignored the same way.
    /// </summary>
    /// <param name="args">salvo's command line.</param>
    /// <param name="interruptible">Whether SIGINT must reach it.</param>
    /// <param name="wrapper">A command that execs salvo in the same process (ip netns exec NAME), or none.</param>
    public static SalvoChild Start(string[] args, bool interruptible = false, IReadOnlyList<string>? wrapper = null) =>
        StartDll(Path.Combine(AppContext.BaseDirectory, "Salvo.Perf.dll"), args, interruptible, wrapper);

    /// <summary>Starts <c>dotnet <paramref name="dll"/> <paramref name="args"/></c>, through env, interruptible and wrapped as <see cref="Start"/> says.</summary>
    public static SalvoChild StartDll(string dll, string[] args, bool interruptible = false, IReadOnlyList<string>? wrapper = null)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        string[] command = [.. wrapper ?? [], "env", interruptible ? "--default-signal=INT,HUP" : "--default-signal=HUP", dotnet];
        var start = new ProcessStartInfo(command[0])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var part in command[1..])
        {
            start.ArgumentList.Add(part);
        }

        start.ArgumentList.Add(dll);
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"could not start {dll}");
        var output = new LiveWriter();
        process.OutputDataReceived += (_, e) => output.WriteLine(e.Data);
        process.ErrorDataReceived += (_, e) => output.WriteLine(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return new SalvoChild(process, output);
    }

    /// <summary>Sends SIGINT, what Ctrl+C sends, to the child by its PID (env has exec'd salvo in the same process).</summary>
    public void Interrupt() => Signal("INT");

    /// <summary>Sends <paramref name="signal"/> (INT, TERM, HUP) to the child by its PID with kill(1).</summary>
    public void Signal(string signal)
    {
        using var kill = Process.Start("kill", ["-s", signal, Process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        if (!kill.WaitForExit(10_000) || kill.ExitCode != 0)
        {
            throw new InvalidOperationException($"kill -s {signal} {Process.Id} failed");
        }
    }

    public void Dispose()
    {
        if (!Process.HasExited)
        {
            Process.Kill();
            Process.WaitForExit(10_000);
        }

        Process.Dispose();
        Output.Dispose();
    }
}
