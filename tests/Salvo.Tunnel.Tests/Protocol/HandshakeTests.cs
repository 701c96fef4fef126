using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

public sealed class HandshakeTests
{
    [Fact]
    public void FirstPacket_StartsHandshake_MessagesHaveProtocolSizes()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));

        var initiation = Assert.Single(pair.AliceOut.TakeDatagrams());
        Assert.Equal(148, initiation.Bytes.Length);
        Assert.Equal(1, initiation.Bytes[0]);

        pair.Bob.ReceiveDatagram(initiation.Bytes, pair.AliceSource, pair.BobOut);
        var response = Assert.Single(pair.BobOut.TakeDatagrams());
        Assert.Equal(92, response.Bytes.Length);
        Assert.Equal(2, response.Bytes[0]);

        pair.Alice.ReceiveDatagram(response.Bytes, Salvo.DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        var staged = Assert.Single(pair.AliceOut.Datagrams);
        Assert.Equal(4, staged.Bytes[0]);
        Assert.Equal(16 + 32 + 16, staged.Bytes.Length);
    }

    [Fact]
    public void Packet_AfterHandshake_ArrivesIntactBothWays()
    {
        using var pair = new TunnelPair();
        var toBob = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 37);
        pair.AliceSends(toBob);
        pair.Exchange();
        Assert.Equal(toBob, Assert.Single(pair.BobOut.Packets));

        var toAlice = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 100);
        pair.BobSends(toAlice);
        pair.Exchange();
        Assert.Equal(toAlice, Assert.Single(pair.AliceOut.Packets));
    }

    [Fact]
    public void Handshake_WithMatchingPresharedKey_Works()
    {
        using var pair = new TunnelPair(presharedKey: WireGuardKey.GeneratePresharedKey());
        pair.Connect();
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        pair.Exchange();
        Assert.Single(pair.AliceOut.Packets);
    }

    [Fact]
    public void ReplayedInitiation_StaleTimestamp_GetsNoResponse()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;

        pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.Single(pair.BobOut.TakeDatagrams());

        // Past the 20 ms flood limit, so only the timestamp can refuse it.
        pair.Clock.Advance(TimeSpan.FromSeconds(1));
        pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.StaleTimestamp]);
    }

    [Fact]
    public void InitiationFlood_NewerInitiationWithinTwentyMilliseconds_IsRefused()
    {
        using var pair = new TunnelPair();
        using var restarted = pair.CreateAlice();
        using var restartedAgain = pair.CreateAlice();
        var output = new RecordingOutput();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        Assert.Single(pair.BobOut.TakeDatagrams());

        // 17 ms is past one 16.8 ms timestamp step, so the initiation is newer, but inside the 20 ms limit.
        pair.Clock.Advance(TimeSpan.FromMilliseconds(17));
        restarted.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2")), output);
        pair.Bob.ReceiveDatagram(output.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.InitiationFlood]);

        pair.Clock.Advance(TimeSpan.FromMilliseconds(17));
        restartedAgain.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2")), output);
        pair.Bob.ReceiveDatagram(output.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        Assert.Single(pair.BobOut.Datagrams);
    }

    [Fact]
    public void Initiation_WrongMac1_IsDroppedBeforeAnyDiffieHellman()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;
        initiation[120] ^= 1;
        pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.InvalidMac1]);
    }

    [Fact]
    public void UnderLoad_InitiationWithoutCookie_GetsCookieReply_RetryWithMac2IsAnswered()
    {
        using var pair = new TunnelPair();
        pair.Bob.UnderLoad = true;
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);

        var reply = Assert.Single(pair.BobOut.TakeDatagrams());
        Assert.Equal(64, reply.Bytes.Length);
        Assert.Equal(3, reply.Bytes[0]);
        Assert.Equal(1, pair.Bob.Counters.CookieRepliesSent);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.CookieRequired]);

        // The cookie reply answers Alice's pending initiation: she sends it again at once, with MAC2.
        pair.Alice.ReceiveDatagram(reply.Bytes, Salvo.DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        Assert.Equal(0, pair.Alice.Counters.TotalDropped);

        var retry = Assert.Single(pair.AliceOut.TakeDatagrams()).Bytes;
        Assert.Contains(retry[132..148], b => b != 0);
        pair.Bob.ReceiveDatagram(retry, pair.AliceSource, pair.BobOut);
        Assert.Equal(92, Assert.Single(pair.BobOut.TakeDatagrams()).Bytes.Length);
    }

    [Fact]
    public void UnderLoad_CookieFromOtherAddress_IsNotAccepted()
    {
        using var pair = new TunnelPair();
        pair.Bob.UnderLoad = true;
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        pair.Alice.ReceiveDatagram(pair.BobOut.TakeDatagrams()[0].Bytes, Salvo.DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);

        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        pair.Alice.Tick(pair.AliceOut);
        pair.AliceSource = pair.AliceSource.WithPort(51999);
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        Assert.Equal(64, Assert.Single(pair.BobOut.TakeDatagrams()).Bytes.Length);
    }

    [Fact]
    public void Response_Forged_IsRefusedAndCounted()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        var response = pair.BobOut.TakeDatagrams()[0].Bytes;
        response[50] ^= 0x80;
        // Recompute nothing: MAC1 now fails too, which must also be a quiet drop.
        pair.Alice.ReceiveDatagram(response, Salvo.DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        Assert.Empty(pair.AliceOut.Datagrams);
        Assert.Equal(1, pair.Alice.Counters[TunnelDropReason.InvalidMac1]);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(147)]
    [InlineData(149)]
    [InlineData(31)]
    public void ReceiveDatagram_Garbage_IsCountedNotThrown(int length)
    {
        using var pair = new TunnelPair();
        var garbage = new byte[length];
        new Random(length).NextBytes(garbage);
        pair.Bob.ReceiveDatagram(garbage, pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.Malformed]);
    }
}
