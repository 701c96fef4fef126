using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

public sealed class ValueParserTests
{
    [Theory]
    [InlineData("100M", 100_000_000)]
    [InlineData("1G", 1_000_000_000)]
    [InlineData("1.5g", 1_500_000_000)]
    [InlineData("64k", 64_000)]
    [InlineData("0", 0)]
    [InlineData("2500", 2500)]
    public void ParseRate_WithSuffix_ReturnsBitsPerSecond(string text, long expected)
    {
        Assert.Equal(expected, ValueParsers.ParseRate(text, "-b", out var error));
        Assert.Null(error);
    }

    [Theory]
    [InlineData("")]
    [InlineData("M")]
    [InlineData("-5M")]
    [InlineData("10X")]
    [InlineData("NaN")]
    public void ParseRate_Malformed_ReportsTheOption(string text)
    {
        ValueParsers.ParseRate(text, "-b/--bitrate", out var error);

        Assert.NotNull(error);
        Assert.StartsWith("-b/--bitrate", error, StringComparison.Ordinal);
    }

    [Fact]
    public void ParseSizes_List_ReturnsEach()
    {
        Assert.Equal([64, 1380, 65507], ValueParsers.ParseSizes("64, 1380,65507", "-l", 8, out var error));
        Assert.Null(error);
    }

    [Fact]
    public void ParseSizes_UnderMinimum_IsRejected()
    {
        ValueParsers.ParseSizes("4", "-l", 8, out var error);

        Assert.Contains("minimum", error, StringComparison.Ordinal);
    }

    [Fact]
    public void ParseHostPort_Bracketed_IPv6_Splits()
    {
        Assert.Equal(("::1", 47010), ValueParsers.ParseHostPort("[::1]:47010", "--server"));
    }

    [Fact]
    public void ParseHostPort_NoPort_ThrowsNamingTheOption()
    {
        var e = Assert.Throws<CliException>(() => ValueParsers.ParseHostPort("localhost", "--server"));

        Assert.StartsWith("--server", e.Message, StringComparison.Ordinal);
    }
}
