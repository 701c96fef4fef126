using Microsoft.Extensions.Logging;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Tests;

/// <summary>What 'salvo tunnel up' prints when the tunnel refuses something: one line on standard error with the reason.</summary>
public sealed class ConsoleLineLoggerTests
{
    [Fact]
    public void Warning_IsOneLineWithLevelAndMessage_DebugIsNotWritten()
    {
        using var error = new StringWriter();
        var logger = new ConsoleLineLogger(error);

        logger.LogWarning("Tunnel refused a datagram from {Source}: {Reason}", "198.18.0.1:51821", "replayed");
        logger.LogDebug("not shown");

        Assert.Equal("salvo tunnel: warning: Tunnel refused a datagram from 198.18.0.1:51821: replayed" + Environment.NewLine, error.ToString());
    }
}
