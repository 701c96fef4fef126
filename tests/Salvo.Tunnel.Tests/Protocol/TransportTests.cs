using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

public sealed class TransportTests
{
    private static readonly Salvo.DatagramAddress s_bob = Salvo.DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint);

    [Theory]
    [InlineData(20, 64)]
    [InlineData(28, 64)]
    [InlineData(33, 80)]
    [InlineData(48, 80)]
    public void Transport_PadsPlaintextToSixteen(int packetLength, int datagramLength)
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", packetLength - 20));
        Assert.Equal(datagramLength, Assert.Single(pair.AliceOut.Datagrams).Bytes.Length);
    }

    [Fact]
    public void Transport_PaddingStopsAtMtu()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        // 1419 bytes would pad to 1424, past the 1420 MTU: it pads to 1420 instead.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 1419 - 20));
        Assert.Equal(16 + 1420 + 16, Assert.Single(pair.AliceOut.Datagrams).Bytes.Length);
    }

    [Fact]
    public void Transport_ForgedTag_IsDroppedWithoutThrowing()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var message = pair.AliceOut.TakeDatagrams()[0].Bytes;
        message[^1] ^= 1;
        pair.Bob.ReceiveDatagram(message, pair.AliceSource, pair.BobOut);
        Assert.Empty(pair.BobOut.Packets);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.DecryptionFailed]);
    }

    [Fact]
    public void Transport_ForgedCounter_DoesNotMoveTheReplayWindow()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var genuine = pair.AliceOut.TakeDatagrams()[0].Bytes;
        var forged = genuine.ToArray();
        forged[15] = 0x7f; // counter near 2^63: if it were marked, the genuine packet would fall out of the window
        pair.Bob.ReceiveDatagram(forged, pair.AliceSource, pair.BobOut);
        pair.Bob.ReceiveDatagram(genuine, pair.AliceSource, pair.BobOut);
        Assert.Single(pair.BobOut.Packets);
    }

    [Fact]
    public void Transport_Replayed_IsDeliveredOnce()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var message = pair.AliceOut.TakeDatagrams()[0].Bytes;
        pair.Bob.ReceiveDatagram(message.ToArray(), pair.AliceSource, pair.BobOut);
        pair.Bob.ReceiveDatagram(message.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.Single(pair.BobOut.Packets);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.Replayed]);
    }

    [Fact]
    public void Transport_SourceOutsideAllowedIps_IsDropped()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        // Alice routes by destination, so she may send it; Bob refuses a source Alice does not own.
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.77", "198.19.0.2"));
        pair.Exchange();
        Assert.Empty(pair.BobOut.Packets);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.SourceNotAllowed]);
    }

    [Fact]
    public void Send_NoRouteForDestination_IsCounted()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.18.9.9"));
        Assert.Empty(pair.AliceOut.Datagrams);
        Assert.Equal(1, pair.Alice.Counters[TunnelDropReason.NoRoute]);
    }

    [Fact]
    public void Responder_BeforeConfirmation_StagesUntilInitiatorSpeaks()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Bob.ReceiveDatagram(pair.AliceOut.TakeDatagrams()[0].Bytes, pair.AliceSource, pair.BobOut);
        var response = pair.BobOut.TakeDatagrams()[0].Bytes;

        // Bob has keys but no proof Alice has them: his packet waits rather than going out under them.
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        Assert.DoesNotContain(pair.BobOut.Datagrams, d => d.Bytes[0] == 4);

        pair.Alice.ReceiveDatagram(response, s_bob, pair.AliceOut);
        pair.Exchange();
        Assert.Single(pair.AliceOut.Packets);
    }

    [Fact]
    public void Roaming_EndpointFollowsLastAuthenticatedPacket()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        var moved = Salvo.DatagramAddress.FromIPEndPoint(new System.Net.IPEndPoint(System.Net.IPAddress.Parse("127.0.0.9"), 40000));
        pair.AliceSource = moved;
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        pair.Exchange();

        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        Assert.Equal(moved, Assert.Single(pair.BobOut.Datagrams).Destination);
    }

    [Fact]
    public void Roaming_ForgedPacketFromNewAddress_DoesNotMoveEndpoint()
    {
        using var pair = new TunnelPair();
        pair.Connect();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var message = pair.AliceOut.TakeDatagrams()[0].Bytes;
        message[20] ^= 1;
        var attacker = Salvo.DatagramAddress.FromIPEndPoint(new System.Net.IPEndPoint(System.Net.IPAddress.Parse("127.0.0.66"), 666));
        pair.Bob.ReceiveDatagram(message, attacker, pair.BobOut);

        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        Assert.Equal(pair.AliceSource, Assert.Single(pair.BobOut.Datagrams).Destination);
    }
}
