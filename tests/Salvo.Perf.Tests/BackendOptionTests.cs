using System.Text.Json;

namespace Salvo.Perf.Tests;

/// <summary>
/// <c>--backend auto|linux|uring|portable</c> on loopback, server, client, rr and sweep (and afxdp on server and rr): a bad value stops the command at
/// start naming the option, and the chosen backend is the one the sockets report in the JSON.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class BackendOptionTests
{
    [Theory]
    [InlineData("loopback")]
    [InlineData("server")]
    [InlineData("client", "127.0.0.1")]
    [InlineData("rr")]
    [InlineData("sweep")]
    public async Task UnknownBackend_FailsAtStart_NamingTheOptionAndTheChoices(string command, string? argument = null)
    {
        string[] args = argument is null ? [command, "--backend", "fast"] : [command, argument, "--backend", "fast"];

        var (exit, _, error) = await Cli.RunAsync(args);

        Assert.Equal(2, exit);
        // salvo server and rr offer afxdp after these (an address of one interface); the others bind loopback or the wildcard.
        Assert.Contains(command is "server" or "rr" ? "--backend: 'fast' is not one of auto, linux, uring, portable, afxdp." : "--backend: 'fast' is not one of auto, linux, uring, portable.",
            error, StringComparison.Ordinal);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("--workers: Workers must be 1 with Backend AfXdp (was 2): one AF_XDP socket serves every receive queue of the interface", "-w", "2", "-B", "198.18.0.1")]
    [InlineData("--workers: Workers must be 1 with Backend AfXdp (was 4): one AF_XDP socket serves every receive queue of the interface", "--echo", "-w", "4", "-B", "198.18.0.1")]
    [InlineData("-B/--bind: EndPoint with Backend AfXdp must be the address of one network interface (was 127.0.0.1)")]
    [InlineData("-B/--bind: EndPoint with Backend AfXdp must be the address of one network interface (was 0.0.0.0)", "-B", "0.0.0.0")]
    [InlineData("-B/--bind: EndPoint with Backend AfXdp must be the address of one network interface (was ::)", "-B", "::")]
    public async Task Server_AfXdpWithWhatItCannotTake_FailsAtStart_NamingTheOption(string expected, params string[] more)
    {
        var (exit, _, error) = await Cli.RunAsync(["server", "--backend", "afxdp", "-1", .. more]);

        Assert.Equal(2, exit);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("loopback")]
    [InlineData("client", "127.0.0.1")]
    public async Task AfXdp_OnACommandThatBindsLoopbackOrTheWildcard_IsNoChoice(string command, string? argument = null)
    {
        string[] args = argument is null ? [command, "--backend", "afxdp"] : [command, argument, "--backend", "afxdp"];

        var (exit, _, error) = await Cli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Contains("--backend: 'afxdp' is not one of auto, linux, uring, portable.", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Rr_BackendWithARemoteServer_DrivesTheClientSockets()
    {
        // Nothing listens on 127.0.0.1:9: the portable client's sends draw ICMP port unreachable, which it
        // counts and reports as a refusal naming --server (not an option error: the backend is the client's).
        var (exit, _, error) = await Cli.RunAsync("rr", "--server", "127.0.0.1:9", "--backend", "portable", "-t", "0.2", "--warmup", "0.05", "--warmup-jit-idle", "0");

        Assert.Equal(1, exit);
        Assert.Contains("--server: 127.0.0.1:9 refused the requests", error, StringComparison.Ordinal);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("portable", "Portable")]
    [InlineData("linux", "LinuxBatched")]
    [InlineData("auto", "LinuxBatched")]
    [InlineData("uring", "IoUring")]
    public async Task Rr_Backend_IsTheOneTheResponderReports(string backend, string reported)
    {
        reported = reported == "IoUring" ? IoUringOrItsFallback : reported;
        var (exit, output, error) = await Cli.RunAsync(
            "rr", "--backend", backend, "-t", "0.2", "--warmup", "0.05", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal(reported, document.RootElement.GetProperty("result").GetProperty("responderBackend").GetString());
        Assert.Equal(reported, document.RootElement.GetProperty("result").GetProperty("clientBackend").GetString());
        Assert.Equal(backend switch { "portable" => "Portable", "linux" => "LinuxBatched", "uring" => "IoUring", _ => "Auto" },
            document.RootElement.GetProperty("settings").GetProperty("backend").GetString());
        // Exit 0 already says responses came back (rr fails when none does); the 0.2 s window itself may hold
        // none when a loaded machine stalls the process for longer than that, so the test does not ask it to.
        Assert.True(document.RootElement.GetProperty("result").GetProperty("sent").GetInt64() > 0, output);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Loopback_PortableBackend_RunsTheSalvoRowsOnIt_AndLeavesThePlainSocketRowsUnmarked()
    {
        var (exit, output, error) = await Cli.RunAsync(
            "loopback", "--backend", "portable", "-m", "socket,salvo,salvo-gso", "-w", "1", "-l", "64", "-t", "0.1", "--warmup", "0.05",
            "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("Portable", document.RootElement.GetProperty("settings").GetProperty("backend").GetString());
        var backends = document.RootElement.GetProperty("results").EnumerateArray().ToDictionary(
            r => r.GetProperty("method").GetString()!,
            r => r.TryGetProperty("backend", out var b) ? b.GetString() : null);
        Assert.Equal(new Dictionary<string, string?>
        {
            ["socket"] = null,
            ["salvo"] = "Portable",
            ["salvo-gso"] = "Portable",
            ["server-w1"] = "Portable",
        }, backends);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Loopback_UringMethodsAndTheUringBackend_RunOnIoUring()
    {
        var (exit, output, error) = await Cli.RunAsync(
            "loopback", "--backend", "uring", "-m", "salvo-uring,salvo-uring-gso,salvo", "-w", "1", "-l", "64", "-t", "0.1", "--warmup", "0.05",
            "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("IoUring", document.RootElement.GetProperty("settings").GetProperty("backend").GetString());
        var backends = document.RootElement.GetProperty("results").EnumerateArray().ToDictionary(
            r => r.GetProperty("method").GetString()!,
            r => r.GetProperty("backend").GetString());
        Assert.Equal(new Dictionary<string, string?>
        {
            ["salvo-uring"] = IoUringOrItsFallback,
            ["salvo-uring-gso"] = IoUringOrItsFallback,
            ["salvo"] = IoUringOrItsFallback,
            ["server-w1"] = IoUringOrItsFallback,
        }, backends);
        Assert.All(document.RootElement.GetProperty("results").EnumerateArray(), r => Assert.True(r.GetProperty("datagramsPerSecond").GetDouble() > 0, r.ToString()));
    }

    /// <summary>What a socket asking for io_uring reports: IoUring, or LinuxBatched where the kernel disables io_uring.</summary>
    private static string IoUringOrItsFallback =>
        File.Exists("/proc/sys/kernel/io_uring_disabled") && File.ReadAllText("/proc/sys/kernel/io_uring_disabled").Trim() != "0" ? "LinuxBatched" : "IoUring";

    [RequiresFact(Requirement.Linux)]
    public async Task Loopback_DefaultBackend_IsLinuxBatchedOnLinux()
    {
        var (exit, output, error) = await Cli.RunAsync("loopback", "-m", "salvo", "-l", "64", "-t", "0.1", "--warmup", "0.05", "--repeat", "1", "--json");

        Assert.True(exit == 0, error);
        using var document = JsonDocument.Parse(output);
        Assert.Equal("LinuxBatched", document.RootElement.GetProperty("results")[0].GetProperty("backend").GetString());
    }

    [RequiresFact(Requirement.Linux)]
    public async Task Sweep_Backend_AppliesToTheLoopbackRowsAndTheRrResponder()
    {
        var directory = Path.Combine(Path.GetTempPath(), "salvo-sweep-backend-" + Guid.NewGuid().ToString("N"));
        try
        {
            var (exit, output, error) = await Cli.RunAsync(
                "sweep", "--backend", "portable", "-m", "salvo", "-l", "64", "-t", "0.1", "--warmup", "0.05", "--parallel-levels", "1",
                "-o", directory, "--json");

            Assert.True(exit == 0, error);
            using var document = JsonDocument.Parse(output);
            Assert.Equal("Portable", document.RootElement.GetProperty("loopback").GetProperty("results")[0].GetProperty("backend").GetString());
            Assert.Equal("Portable", document.RootElement.GetProperty("rr")[0].GetProperty("responderBackend").GetString());
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }
}
