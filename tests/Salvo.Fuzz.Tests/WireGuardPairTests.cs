using Salvo.Fuzz.Targets;
using Salvo.Tunnel.Protocol;

namespace Salvo.Fuzz.Tests;

/// <summary>
/// The WireGuard targets start afl from real messages (a mask of zeros): these hold only while the pair's messages are
/// valid, which is what lets fuzzed inputs reach the checks behind MAC1 and the AEAD.
/// </summary>
public sealed class WireGuardPairTests
{
    [Fact]
    public void BobAnswer_AliceInitiation_IsAResponse()
    {
        using var pair = new WireGuardPair();

        var answer = pair.BobAnswer(pair.AliceInitiation());

        Assert.Equal(MessageType.Response, MessageLayout.Classify(answer));
    }

    [Fact]
    public void BobAnswer_UnderLoad_IsACookieReply()
    {
        using var pair = new WireGuardPair();
        pair.Bob.UnderLoad = true;

        var answer = pair.BobAnswer(pair.AliceInitiation());

        Assert.Equal(MessageType.CookieReply, MessageLayout.Classify(answer));
    }

    [Fact]
    public void Connect_FirstTransportDatagram_IsDelivered()
    {
        using var pair = new WireGuardPair();

        pair.Bob.ReceiveDatagram(pair.Connect(), WireGuardPair.AliceSource, pair.BobOut);

        Assert.Equal(1, pair.BobOut.Packets);
    }

    [Fact]
    public void Seal_PacketFromAnAllowedSource_IsDelivered()
    {
        using var pair = new WireGuardPair();
        pair.Connect();

        var datagram = WireGuardDataTarget.Seal(pair, WireGuardPair.IPv4Packet("198.19.0.1", "198.19.0.2", 16));
        pair.Bob.ReceiveDatagram(datagram, WireGuardPair.AliceSource, pair.BobOut);

        Assert.Equal(1, pair.BobOut.Packets);
    }

    [Fact]
    public void AliceInitiation_SamePairTwice_IsTheSameBytesButTheIndex()
    {
        using var first = new WireGuardPair();
        using var second = new WireGuardPair();

        var a = first.AliceInitiation();
        var b = second.AliceInitiation();

        // The sender index (bytes 4-7) is random by design; the ephemeral key and timestamp are not, under the pair.
        Assert.Equal(a.AsSpan(8, 32).ToArray(), b.AsSpan(8, 32).ToArray());
    }
}
