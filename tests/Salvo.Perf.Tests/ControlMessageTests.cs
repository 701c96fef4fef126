using System.Text;
using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.Tests;

public sealed class ControlMessageTests
{
    [Theory]
    [InlineData("not json")]
    [InlineData("{\"type\":")]
    [InlineData("[1,2,3]")]
    [InlineData("{\"lengthBytes\":1380}")]
    public void Parse_Malformed_ThrowsInvalidDataWithReason(string line)
    {
        var e = Assert.Throws<InvalidDataException>(() => ControlChannel.Parse(Encoding.UTF8.GetBytes(line)));

        Assert.False(string.IsNullOrWhiteSpace(e.Message));
    }

    [Fact]
    public void ValidateHello_Good_IsAccepted()
    {
        Assert.Null(Hello().ValidateHello());
    }

    [Theory]
    [InlineData("version")]
    [InlineData("length")]
    [InlineData("rate")]
    [InlineData("duration")]
    [InlineData("parallel")]
    [InlineData("reverse")]
    public void ValidateHello_BadField_NamesIt(string field)
    {
        var hello = field switch
        {
            "version" => Hello() with { Version = 2 },
            "length" => Hello() with { LengthBytes = 70_000 },
            "rate" => Hello() with { BitsPerSecond = -1 },
            "duration" => Hello() with { DurationSeconds = 0 },
            "parallel" => Hello() with { Parallel = 1000 },
            _ => Hello() with { Reverse = true, ClientPorts = null },
        };

        var reason = hello.ValidateHello();

        Assert.NotNull(reason);
        Assert.Contains(field == "rate" ? "bitsPerSecond" : field == "reverse" ? "clientPorts" : field, reason, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Parse_RoundTripsAHello()
    {
        var line = System.Text.Json.JsonSerializer.SerializeToUtf8Bytes(Hello(), Reporting.PerfJson.Compact.ControlMessage);

        var parsed = ControlChannel.Parse(line);

        Assert.Equal("hello", parsed.Type);
        Assert.Equal(1380, parsed.LengthBytes);
        Assert.Contains("\"lengthBytes\"", Encoding.UTF8.GetString(line), StringComparison.Ordinal);
    }

    private static ControlMessage Hello() => new("hello", ControlMessage.CurrentVersion, 1380, 100_000_000, 1, 1, false);
}
