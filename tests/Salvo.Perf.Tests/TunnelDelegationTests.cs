namespace Salvo.Perf.Tests;

/// <summary>
/// 'salvo tunnel up/show/userspace' still work for this release: each says once that it is deprecated, naming the
/// daemon's own program, and runs the daemon's command with salvo's output and exit code.
/// </summary>
public sealed class TunnelDelegationTests
{
    [Fact]
    public async Task TunnelUp_MissingConfig_NamesTheDaemonAndRunsItsCommand()
    {
        var missing = Path.Combine(Path.GetTempPath(), $"salvo-absent-{Environment.ProcessId}.conf");

        var (exit, _, error) = await Cli.RunAsync("tunnel", "up", missing);

        Assert.Equal(2, exit);
        Assert.StartsWith("salvo: 'salvo tunnel up' is deprecated and will be removed: use 'wireguard-salvo up'", error, StringComparison.Ordinal);
        Assert.Contains($"wireguard-salvo: error: up: CONFIG: no such file '{missing}'", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TunnelShow_NoSuchTunnel_IsTheDaemonsErrorWithItsExitCode()
    {
        var (exit, output, error) = await Cli.RunAsync("tunnel", "show", $"sd{Environment.ProcessId % 100_000}x");

        Assert.Equal(1, exit);
        Assert.Empty(output);
        Assert.Contains("use 'wireguard-salvo show'", error, StringComparison.Ordinal);
        Assert.Contains("show: IFACE: no running tunnel", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TunnelUserspace_BadName_NamesTheDaemonsCommandLine()
    {
        var (exit, _, error) = await Cli.RunAsync("tunnel", "userspace", "wg%d");

        Assert.Equal(2, exit);
        Assert.Contains("use 'wireguard-salvo [-f] IFACE'", error, StringComparison.Ordinal);
        Assert.Contains("IFACE: 'wg%d' holds '%'", error, StringComparison.Ordinal);
    }
}
