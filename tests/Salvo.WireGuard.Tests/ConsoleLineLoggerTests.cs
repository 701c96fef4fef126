using Microsoft.Extensions.Logging;

namespace Salvo.WireGuard.Tests;

/// <summary>What 'wireguard-salvo up' prints when the tunnel refuses something: one line on standard error with the reason.</summary>
public sealed class ConsoleLineLoggerTests
{
    [Fact]
    public void Warning_IsOneLineWithLevelAndMessage_DebugIsNotWritten()
    {
        using var error = new StringWriter();
        var logger = new ConsoleLineLogger(error);

        logger.LogWarning("Tunnel refused a datagram from {Source}: {Reason}", "198.18.0.1:51821", "replayed");
        logger.LogDebug("not shown");

        Assert.Equal("wireguard-salvo: warning: Tunnel refused a datagram from 198.18.0.1:51821: replayed" + Environment.NewLine, error.ToString());
    }
}
