using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;
using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.Tests.Sockperf;

/// <summary><c>salvo rr --protocol sockperf</c>: its codec, its options, and a run against the stock sockperf server.</summary>
public sealed class RrSockperfTests
{
    [RequiresFact(Tools = ["sockperf"])]
    public async Task Rr_AgainstStockSockperfServer_CompletesAndTheServerCountsEveryRequestSent()
    {
        var port = FreeUdpPort();
        using var server = new StockSockperf.Running("server", "-i", "127.0.0.1", "-p", port.ToString(CultureInfo.InvariantCulture));
        Assert.True(await server.WaitForOutputAsync("block on socket"), server.Output);

        var (exit, output, error) = await Cli.RunAsync("rr", "--server", $"127.0.0.1:{port}", "--protocol", "sockperf", "-P", "2",
            "--request", "100", "-t", "0.5", "--warmup", "0.1", "--warmup-jit-idle", "0", "--json");

        Assert.True(exit == 0, output + error);
        Assert.True(await server.InterruptAsync(), server.Output);
        var result = JsonDocument.Parse(output).RootElement.GetProperty("result");
        Assert.True(result.GetProperty("completed").GetInt64() > 0, output);
        Assert.Equal(0, result.GetProperty("malformed").GetInt64());
        Assert.Equal(100, result.GetProperty("responseBytes").GetInt32());
        Assert.True(result.GetProperty("latency").GetProperty("p999Microseconds").GetDouble() > 0, output);
        Assert.Equal(StockSockperf.ServerTotal(server.Output), result.GetProperty("sent").GetInt64());
    }

    [Fact]
    public void Codec_ServerAnswer_GivesBackSlotSequenceAndSendTime()
    {
        var codec = new SockperfRrCodec(20, 4);
        var request = new byte[20];
        var reply = new byte[20];
        codec.WriteRequest(request, slot: 3, sequence: 41, timeNanoseconds: 123_456);

        SockperfServerRules.WriteReply(request, reply);

        Assert.Equal(SockperfHeaderError.None, SockperfHeader.TryRead(request, out var sent));
        Assert.Equal(new SockperfHeader(42, SockperfFlags.Client | SockperfFlags.PongRequest, 20), sent);
        Assert.Equal(RrResponseKind.Answer, codec.ReadResponse(reply, out var answered));
        Assert.Equal(new PayloadHeader(PayloadKind.Response, 3, 41, 123_456), answered);
    }

    [Fact]
    public void Codec_AnswerToARequestOverwrittenInTheRing_IsUnknownNotAWrongLatency()
    {
        var codec = new SockperfRrCodec(SockperfHeader.Size, 1);
        var first = new byte[SockperfHeader.Size];
        var reply = new byte[SockperfHeader.Size];
        var later = new byte[SockperfHeader.Size];
        codec.WriteRequest(first, 0, 0, 1);
        SockperfServerRules.WriteReply(first, reply);

        // The ring holds 1,024: request 1,024 takes request 0's entry.
        codec.WriteRequest(later, 0, 1024, 2);

        Assert.Equal(RrResponseKind.Unknown, codec.ReadResponse(reply, out _));
    }

    [Fact]
    public void Codec_OwnRequestOrWrongLength_IsMalformed()
    {
        var codec = new SockperfRrCodec(20, 4);
        var request = new byte[20];
        codec.WriteRequest(request, 0, 0, 1);
        var reply = new byte[20];
        SockperfServerRules.WriteReply(request, reply);

        Assert.Equal(RrResponseKind.Malformed, codec.ReadResponse(request, out _));
        Assert.Equal(RrResponseKind.Malformed, codec.ReadResponse(reply.AsSpan(0, 19), out _));
    }

    [Fact]
    public async Task Cli_SockperfWithoutServer_IsRefusedNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("rr", "--protocol", "sockperf");

        Assert.NotEqual(0, exit);
        Assert.Contains("--protocol: sockperf needs --server", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Cli_SockperfWithAnotherResponseSize_IsRefusedNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("rr", "--protocol", "sockperf", "-s", "127.0.0.1:9", "--request", "64", "--response", "100");

        Assert.NotEqual(0, exit);
        Assert.Contains("--response:", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Cli_SalvoRequestBelowItsHeader_IsRefusedNamingTheOption()
    {
        var (exit, _, error) = await Cli.RunAsync("rr", "--request", "20");

        Assert.NotEqual(0, exit);
        Assert.Contains("--request: 20", error, StringComparison.Ordinal);
    }

    private static int FreeUdpPort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}
