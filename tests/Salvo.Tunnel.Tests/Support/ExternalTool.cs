using System.Diagnostics;
using Salvo.Tests.Lab;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>Runs a system tool with a bounded wait; the process it starts is the only one it ends.</summary>
internal static class ExternalTool
{
    private static readonly string[] s_searchPath = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"];

    /// <summary>The full path of <paramref name="name"/>, or null when it is not installed.</summary>
    public static string? Find(string name) =>
        s_searchPath.Select(folder => Path.Combine(folder, name)).FirstOrDefault(File.Exists);

    /// <summary>Runs <paramref name="tool"/> with <paramref name="arguments"/>, feeding <paramref name="input"/>; returns standard output.</summary>
    public static string Run(string tool, IEnumerable<string> arguments, string? input = null, int timeoutMilliseconds = 10_000)
    {
        var (exitCode, output, error) = RunAllowingFailure(tool, arguments, input, timeoutMilliseconds);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"{tool} {string.Join(' ', arguments)} exited {exitCode}: {error}");
        }

        return output;
    }

    /// <summary>Like <see cref="Run"/>, but a non-zero exit is returned rather than thrown (a ping that must fail).</summary>
    public static (int ExitCode, string Output, string Error) RunAllowingFailure(
        string tool, IEnumerable<string> arguments, string? input = null, int timeoutMilliseconds = 10_000)
    {
        var start = new ProcessStartInfo(tool)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{tool} did not start");
        if (input is not null)
        {
            process.StandardInput.Write(input);
        }

        process.StandardInput.Close();
        var output = ProcessOutput.ReadToEndOnOwnThread(process.StandardOutput);
        var error = ProcessOutput.ReadToEndOnOwnThread(process.StandardError);
        if (!process.WaitForExit(timeoutMilliseconds))
        {
            process.Kill();
            throw new TimeoutException($"{tool} {string.Join(' ', start.ArgumentList)} ran past {timeoutMilliseconds} ms");
        }

        return (process.ExitCode, output.Result, error.Result);
    }
}
