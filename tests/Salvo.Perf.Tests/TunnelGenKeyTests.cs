using System.Diagnostics;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

/// <summary>
/// <c>salvo tunnel genkey</c> with its standard output where a shell puts it, as <c>wg genkey &gt; file</c> is used: a new
/// process, since what is checked is the real file descriptor 1.
/// </summary>
public sealed class TunnelGenKeyTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-genkey-test-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [RequiresTheory(Requirement.Linux)]
    [InlineData("022", true)]
    [InlineData("027", true)]
    [InlineData("077", false)]
    public async Task GenKey_IntoAFileGroupOrOthersCanRead_WarnsOnStandardError(string umask, bool warns)
    {
        var key = Path.Combine(_folder, "private.key");

        var (exit, error) = await RunAsync($"umask {umask}; exec \"$0\" \"$1\" tunnel genkey > \"$2\"", key);

        Assert.True(exit == 0, error);
        Assert.Equal(45, new FileInfo(key).Length);
        Assert.Equal(warns, error.Contains("warning: writing a private key to a file that group or others can read", StringComparison.Ordinal));
        Assert.Equal(warns, error.Contains("Consider setting the umask to 077 and trying again.", StringComparison.Ordinal));
    }

    [RequiresFact(Requirement.Linux)]
    public async Task GenKey_IntoAPipe_WarnsNothing()
    {
        var (exit, error) = await RunAsync("umask 022; \"$0\" \"$1\" tunnel genkey | cat > /dev/null", "unused");

        Assert.True(exit == 0, error);
        Assert.Empty(error);
    }

    private static async Task<(int ExitCode, string Error)> RunAsync(string script, string file)
    {
        var host = Environment.ProcessPath is { } path && Path.GetFileNameWithoutExtension(path) == "dotnet" ? path : "dotnet";
        var start = new ProcessStartInfo("/bin/sh") { RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in new[] { "-c", script, host, typeof(SalvoCli).Assembly.Location, file })
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var error = await process.StandardError.ReadToEndAsync(timeout.Token);
        await process.WaitForExitAsync(timeout.Token);
        return (process.ExitCode, error);
    }
}
