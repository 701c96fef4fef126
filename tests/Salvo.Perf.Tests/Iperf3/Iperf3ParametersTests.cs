using System.Text;
using Salvo.Perf.TestServer.Iperf3;

namespace Salvo.Perf.Tests.Iperf3;

public sealed class Iperf3ParametersTests
{
    [Fact]
    public void Parse_WhatIperf3SendsForUdp_ReadsEveryOptionWeRun()
    {
        var parameters = Parse("""{"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"reverse":true,"len":100,"bandwidth":20000,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"}""",
            out _, out var reason);

        Assert.Null(reason);
        Assert.Equal(new Iperf3Parameters(1, 2, true, 100, 20_000, true), parameters);
        Assert.Empty(parameters!.Ignored);
    }

    [Fact]
    public void Parse_NoBandwidthKey_IsUnlimited()
    {
        // What iperf3 3.12 sends for -u -t 1 -b 0 -R: it leaves "bandwidth" out when the rate is 0.
        var parameters = Parse("""{"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"reverse":true,"len":32768,"pacing_timer":1000,"client_version":"3.12"}""",
            out _, out var reason);

        Assert.Null(reason);
        Assert.Equal(0, parameters!.BitsPerSecondPerStream);
    }

    [Theory]
    [InlineData("""{"tcp":true,"time":1}""", "TCP tests are not supported")]
    [InlineData("""{"sctp":true,"time":1}""", "SCTP tests are not supported")]
    public void Parse_NotUdp_RefusedAsProtocolNotSupportedNamingWhatIsSupported(string json, string expected)
    {
        Assert.Null(Parse(json, out var error, out var reason));

        Assert.Equal(Iperf3Error.ProtocolNotSupported, error);
        Assert.Equal("test initialization failed: Protocol not supported", error.Describe());
        Assert.StartsWith(expected, reason, StringComparison.Ordinal);
        Assert.Contains("UDP tests (-u) with -t, -b, -l, -P, -R", reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"udp":true,"bidirectional":true}""", "--bidir is not supported")]
    [InlineData("""{"udp":true,"num":100000}""", "-n/--bytes is not supported")]
    [InlineData("""{"udp":true,"omit":1}""", "-O/--omit is not supported")]
    [InlineData("""{"udp":true,"time":0}""", "time 0 is outside")]
    [InlineData("""{"udp":true,"parallel":129}""", "parallel 129 is outside 1..128")]
    [InlineData("""{"udp":true,"len":8}""", "len 8 is outside 12..65507 bytes")]
    [InlineData("""{"udp":true,"len":"big"}""", "len NaN is outside")]
    [InlineData("""[1]""", "the parameters are not a JSON object")]
    public void Parse_UnsupportedOrBadValue_RefusedAsNotImplementedNamingIt(string json, string expected)
    {
        Assert.Null(Parse(json, out var error, out var reason));

        Assert.Equal(Iperf3Error.NotImplemented, error);
        Assert.StartsWith(expected, reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_SocketSettingsThisServerKeepsItsOwn_NamedAsIgnored()
    {
        var parameters = Parse("""{"udp":true,"time":1,"window":1048576,"TOS":16,"server_affinity":0}""", out _, out var reason);

        Assert.Null(reason);
        Assert.Equal(["-w/--window", "-S/--tos"], parameters!.Ignored);
    }

    private static Iperf3Parameters? Parse(string json, out Iperf3Error error, out string? reason) =>
        Iperf3Parameters.Parse(Encoding.UTF8.GetBytes(json), out error, out reason);
}
