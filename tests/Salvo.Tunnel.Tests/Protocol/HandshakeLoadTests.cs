using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>The engine turns cookies on by itself when handshakes pass the per-second budget, and off a second later.</summary>
public sealed class HandshakeLoadTests
{
    [Fact]
    public void InitiationFlood_PastBudget_GetsCookieReplies_RealPeerStillConnects()
    {
        using var pair = new TunnelPair();
        pair.Bob.HandshakeBudgetPerSecond = 4;
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;

        // The same initiation again and again: valid MAC1, so each costs Diffie-Hellman until cookies start.
        for (var i = 0; i < 10; i++)
        {
            pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        }

        Assert.True(pair.Bob.IsUnderLoad);
        Assert.False(pair.Bob.UnderLoad);
        // Six past the budget from one address: its own bucket holds five, so five cookie replies and one refusal.
        Assert.Equal(5, pair.Bob.Counters.CookieRepliesSent);
        Assert.Equal(5, pair.Bob.Counters[TunnelDropReason.CookieRequired]);
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.HandshakeRateLimited]);
        Assert.Equal(3, pair.Bob.Counters[TunnelDropReason.StaleTimestamp]);
        var cookieReply = pair.BobOut.TakeDatagrams().Last(d => d.Bytes.Length == 64).Bytes;

        // The real peer takes the cookie and its retransmission, carrying MAC2, is answered while the flood lasts.
        pair.Alice.ReceiveDatagram(cookieReply, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), pair.AliceOut);
        Assert.Equal(1, pair.Alice.Counters.CookieRepliesReceived);
        pair.Clock.Advance(TimeSpan.FromMilliseconds(900));
        pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.True(pair.Bob.IsUnderLoad);
        pair.BobOut.TakeDatagrams();
        pair.Clock.Advance(TimeSpan.FromSeconds(5));
        pair.Alice.Tick(pair.AliceOut);
        pair.Exchange();
        Assert.Single(pair.BobOut.Packets);

        // The flood's first copy was the genuine initiation (answered); the retransmission with MAC2 is the second.
        Assert.Equal(2, pair.Bob.Counters.HandshakesAnswered);
    }

    [Fact]
    public void UnderLoad_EndsOneSecondAfterTheBudgetWasLastExceeded()
    {
        using var pair = new TunnelPair();
        pair.Bob.HandshakeBudgetPerSecond = 1;
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = pair.AliceOut.TakeDatagrams()[0].Bytes;
        pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.False(pair.Bob.IsUnderLoad);
        pair.Bob.ReceiveDatagram(initiation.ToArray(), pair.AliceSource, pair.BobOut);
        Assert.True(pair.Bob.IsUnderLoad);

        pair.Clock.Advance(TimeSpan.FromMilliseconds(1001));
        Assert.False(pair.Bob.IsUnderLoad);
    }
}
