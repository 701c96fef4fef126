using System.Net;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Under load each source has its own handshake budget, cookie replies to strangers have a global one, and a real
/// peer still completes its handshake in one round trip more, without waiting for the retransmission timer.
/// </summary>
public sealed class HandshakeFloodTests
{
    [Fact]
    public void OneSourceFlood_PastItsBucket_IsRateLimited_AnotherSourceStillConnects()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;
        var flooder = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse("198.18.0.66"), 40000));
        pair.Bob.UnderLoad = true;

        // 1,000 copies in one second (valid MAC1, no MAC2) from one address: 5 at once, then 20 a second.
        for (var i = 0; i < 1_000; i++)
        {
            pair.Bob.ReceiveDatagram(initiation.ToArray(), flooder, pair.BobOut);
            pair.Clock.Advance(TimeSpan.FromMilliseconds(1));
        }

        var counters = pair.Bob.Counters;
        Assert.InRange(counters.CookieRepliesSent, 5, 5 + 20);
        Assert.Equal(1_000 - counters.CookieRepliesSent, counters[TunnelDropReason.HandshakeRateLimited]);
        pair.BobOut.TakeDatagrams();

        // Alice's retransmission gets a cookie; she sends again at once with MAC2 and is answered, no timer waited for.
        pair.Clock.Advance(TimeSpan.FromSeconds(6));
        pair.Alice.Tick(pair.AliceOut);
        pair.Exchange();

        Assert.Single(pair.BobOut.Packets);
        Assert.Equal(1, counters.HandshakesAnswered);
    }

    [Fact]
    public void SpoofedFlood_CookieRepliesCapped_DropsAddUpToWhatWasSent_RestartedPeerStillConnects()
    {
        using var pair = new TunnelPair();
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var stale = pair.AliceOut.Datagrams[0].Bytes.ToArray();
        pair.Exchange();
        pair.BobOut.Datagrams.Clear();
        var counters = pair.Bob.Counters;
        var answeredBefore = counters.HandshakesAnswered;
        var droppedBefore = counters.TotalDropped;
        pair.Bob.CookieRepliesPerSecond = 300;
        var restarted = pair.CreateAlice();
        restarted.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2")), pair.AliceOut);
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;

        // 10,000 replays of an old initiation (valid MAC1) from 10,000 forged addresses in one second: the first 100 cost
        // Diffie-Hellman (and fail as replays), then each needs a cookie, and 300 a second of those are answered.
        const int Sent = 10_000;
        for (var i = 0; i < Sent; i++)
        {
            var source = new IPAddress([198, 18, (byte)(i >> 8), (byte)i]);
            pair.Bob.ReceiveDatagram(stale.ToArray(), DatagramAddress.FromIPEndPoint(new IPEndPoint(source, 40000)), pair.BobOut);
            pair.Clock.Advance(TimeSpan.FromTicks(TimeSpan.TicksPerSecond / Sent));
        }

        Assert.True(pair.Bob.IsUnderLoad);
        Assert.InRange(counters.CookieRepliesSent, 300, 610);
        Assert.Equal(counters.CookieRepliesSent, counters[TunnelDropReason.CookieRequired]);
        Assert.True(counters[TunnelDropReason.CookieReplyLimited] > 9_000, $"{counters[TunnelDropReason.CookieReplyLimited]} unanswered");
        Assert.Equal(Sent, counters.TotalDropped - droppedBefore + counters.HandshakesAnswered - answeredBefore);
        Assert.Equal(counters.CookieRepliesSent, pair.BobOut.TakeDatagrams().Count(d => d.Bytes.Length == 64));

        // The cookie budget is spent, but Alice's address is a peer's endpoint: her restarted end is answered with a
        // cookie, sends again at once with MAC2, and the session is up with no retransmission timer waited for.
        pair.Bob.ReceiveDatagram(initiation, pair.AliceSource, pair.BobOut);
        var reply = Assert.Single(pair.BobOut.TakeDatagrams());
        Assert.Equal(64, reply.Bytes.Length);
        restarted.ReceiveDatagram(reply.Bytes, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        var retry = Assert.Single(pair.AliceOut.TakeDatagrams());
        pair.Bob.ReceiveDatagram(retry.Bytes, pair.AliceSource, pair.BobOut);
        var response = Assert.Single(pair.BobOut.TakeDatagrams());
        restarted.ReceiveDatagram(response.Bytes, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);

        Assert.NotNull(restarted.CurrentKeypairOf(pair.BobKey.DerivePublicKey()));
        restarted.Dispose();
    }

    [Fact]
    public void ResponseToOwnInitiation_InitiatorUnderLoad_AcceptedWithoutCookie()
    {
        using var pair = new TunnelPair();
        pair.Alice.UnderLoad = true;

        pair.Connect();

        Assert.Equal(1, pair.Alice.Counters.HandshakesInitiated);
        Assert.Equal(0, pair.Alice.Counters.CookieRepliesSent);
    }

    [Fact]
    public void CookieRepliesPerSecond_Negative_IsRefusedNamingTheOption()
    {
        using var pair = new TunnelPair();

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => pair.Bob.CookieRepliesPerSecond = -1);

        Assert.Equal("CookieRepliesPerSecond", error.ParamName);
    }
}
