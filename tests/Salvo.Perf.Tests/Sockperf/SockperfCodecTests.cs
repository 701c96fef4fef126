using Salvo.Perf.TestServer.Sockperf;

namespace Salvo.Perf.Tests.Sockperf;

/// <summary>
/// The sockperf codec against bytes captured on loopback from the Debian sockperf 3.7 binary with
/// <c>tcpdump -i lo -X</c>: <c>sockperf server -i 127.0.0.1 -p 17777</c> answering
/// <c>sockperf ping-pong -i 127.0.0.1 -p 17777 -t 1 --msg-size 20</c> (UDP),
/// <c>sockperf under-load ... --mps 1000</c> (14-byte default size), and
/// <c>sockperf ping-pong --tcp ... --msg-size 16</c>.
/// </summary>
public sealed class SockperfCodecTests
{
    // ping-pong, UDP, --msg-size 20: client -> server, then the server's answer.
    private static readonly byte[] PingRequest = Convert.FromHexString("00000000000000010003000000" + "14b73158a35a25");
    private static readonly byte[] PingReply = Convert.FromHexString("00000000000000010002000000" + "14b73158a35a25");

    // under-load, UDP, default 14 bytes, a message that wants no answer (flags 0x0001).
    private static readonly byte[] UnderLoadMessage = Convert.FromHexString("0000000000000001000100000" + "00e");

    // ping-pong --tcp --msg-size 16: the stream carries the same header, the length field frames it.
    private static readonly byte[] TcpRequest = Convert.FromHexString("000000000000000100030000" + "00109a66");
    private static readonly byte[] TcpReply = Convert.FromHexString("000000000000000100020000" + "00109a66");

    [Fact]
    public void TryRead_CapturedPingRequest_HasSequenceFlagsAndLength()
    {
        Assert.Equal(SockperfHeaderError.None, SockperfHeader.TryRead(PingRequest, out var header));

        Assert.Equal(new SockperfHeader(1, SockperfFlags.Client | SockperfFlags.PongRequest, 20), header);
        Assert.Equal(SockperfVerdict.Reply, SockperfServerRules.DecideDatagram(PingRequest));
    }

    [Fact]
    public void WriteReply_CapturedPingRequest_IsTheCapturedReply()
    {
        var reply = new byte[PingRequest.Length];

        SockperfServerRules.WriteReply(PingRequest, reply);

        Assert.Equal(PingReply, reply);
    }

    [Fact]
    public void WriteReply_CapturedTcpRequest_IsTheCapturedReply()
    {
        var reply = new byte[TcpRequest.Length];

        SockperfServerRules.WriteReply(TcpRequest, reply);

        Assert.Equal(TcpReply, reply);
        Assert.Equal(SockperfSniff.Sockperf, SockperfServerRules.Sniff(TcpRequest));
    }

    [Fact]
    public void DecideDatagram_UnderLoadMessageWithoutPongRequest_IsCountedNotAnswered()
    {
        Assert.Equal(SockperfVerdict.Count, SockperfServerRules.DecideDatagram(UnderLoadMessage));
    }

    [Fact]
    public void DecideDatagram_ServerReply_IsIgnored()
    {
        Assert.Equal(SockperfVerdict.NotFromClient, SockperfServerRules.DecideDatagram(PingReply));
    }

    [Fact]
    public void DecideDatagram_Warmup_IsNeitherAnsweredNorCounted()
    {
        var warmup = (byte[])PingRequest.Clone();
        warmup[9] |= (byte)SockperfFlags.Warmup;

        Assert.Equal(SockperfVerdict.Warmup, SockperfServerRules.DecideDatagram(warmup));
    }

    [Fact]
    public void DecideDatagram_LengthFieldNotTheDatagramLength_IsMalformed()
    {
        Assert.Equal(SockperfVerdict.Malformed, SockperfServerRules.DecideDatagram(PingRequest.AsSpan(0, 19)));
    }

    [Theory]
    [InlineData("0000000000000001000300000000", (int)SockperfHeaderError.BadLength)]   // length 0
    [InlineData("000000000000000100030000000d", (int)SockperfHeaderError.BadLength)]   // 13: below the header
    [InlineData("000000000000000100030000ffe4", (int)SockperfHeaderError.BadLength)]   // 65,508: above sockperf's maximum
    [InlineData("000000000000000100080000000e", (int)SockperfHeaderError.UnknownFlags)]
    [InlineData("00000000000000010003000000", (int)SockperfHeaderError.TooShort)]
    public void TryRead_BadHeader_SaysWhy(string hex, int expected)
    {
        Assert.Equal((SockperfHeaderError)expected, SockperfHeader.TryRead(Convert.FromHexString(hex), out _));
    }

    [Fact]
    public void Write_ThenTryRead_RoundTrips()
    {
        var header = new SockperfHeader(0x0102030405060708, SockperfFlags.Client | SockperfFlags.PongRequest, 65_507);
        var bytes = new byte[SockperfHeader.Size];

        header.Write(bytes);

        Assert.Equal("0102030405060708" + "0003" + "0000FFE3", Convert.ToHexString(bytes));
        Assert.Equal(SockperfHeaderError.None, SockperfHeader.TryRead(bytes, out var read));
        Assert.Equal(header, read);
    }

    [Theory]
    [InlineData("", (int)SockperfSniff.NeedMore)]
    [InlineData("00000000", (int)SockperfSniff.NeedMore)]
    [InlineData("7B2274797065223A2268656C6C6F227D", (int)SockperfSniff.Other)]   // {"type":"hello"} (Salvo's control line)
    [InlineData("0000000000000001000000000010", (int)SockperfSniff.Other)]       // no client flag
    public void Sniff_FirstBytes_SortsTheConnection(string hex, int expected)
    {
        Assert.Equal((SockperfSniff)expected, SockperfServerRules.Sniff(Convert.FromHexString(hex)));
    }
}
