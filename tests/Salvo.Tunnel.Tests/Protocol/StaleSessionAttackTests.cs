using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Transport messages that name no session of ours, which anyone can send and a stranger can send from a peer's
/// endpoint: the handshake they may start goes only to a peer still configured, and a flood of them never costs a pass
/// over every peer once a second.
/// </summary>
public sealed class StaleSessionAttackTests
{
    [Fact]
    public void UnknownIndexFromARemovedPeersEndpoint_StartsNoHandshake_AndMakesNoSession()
    {
        using var pair = new TunnelPair();
        var bob = DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint);

        // The first such message builds the map by endpoint and starts a handshake with Bob, as after a relaunch.
        pair.Alice.ReceiveDatagram(UnknownIndexMessage(), bob, pair.AliceOut);
        Assert.Single(pair.AliceOut.TakeDatagrams(), d => d.Bytes[0] == 1);

        // Bob is removed, and within the same second another message comes from his old endpoint: the map, built at
        // most once a second, still names him, but nothing may be sent to a peer that is gone.
        pair.Alice.Configure(new TunnelChange { Peers = { new PeerChange(pair.BobKey.DerivePublicKey()) { Remove = true } } }, output: null);
        Assert.Equal(0, pair.Alice.ActivePeers);
        pair.Alice.ReceiveDatagram(UnknownIndexMessage(), bob, pair.AliceOut);

        Assert.Empty(pair.AliceOut.Datagrams);
        Assert.Equal(0, pair.Alice.ActivePeers);
        Assert.Equal(0, pair.Alice.TickingPeers);
    }

    [Fact]
    public void UnknownIndexFlood_OverManySeconds_BuildsTheMapsByEndpointOnlyWhenAnEndpointChanged()
    {
        using var pair = new TunnelPair();
        var stranger = DatagramAddress.FromIPEndPoint(new System.Net.IPEndPoint(System.Net.IPAddress.Parse("192.0.2.7"), 4444));
        for (var second = 0; second < 10; second++)
        {
            pair.Clock.Advance(TimeSpan.FromSeconds(1));
            for (var i = 0; i < 10; i++)
            {
                pair.Alice.ReceiveDatagram(UnknownIndexMessage(), stranger, pair.AliceOut);
            }
        }

        Assert.Equal(100, pair.Alice.Counters[TunnelDropReason.UnknownIndex]);
        Assert.Equal(1, pair.Alice.EndpointMapsBuilt);

        // A peer that moves is seen by the next build, a second later.
        pair.Alice.Configure(new TunnelChange { Peers = { new PeerChange(pair.BobKey.DerivePublicKey()) { Endpoint = new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 51999) } } }, output: null);
        pair.Clock.Advance(TimeSpan.FromSeconds(1));
        pair.Alice.ReceiveDatagram(UnknownIndexMessage(), DatagramAddress.FromIPEndPoint(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 51999)), pair.AliceOut);
        Assert.Equal(2, pair.Alice.EndpointMapsBuilt);
        Assert.Single(pair.AliceOut.Datagrams, d => d.Bytes[0] == 1);
    }

    /// <summary>A transport message (type 4) naming receiver index 0x01020304, which no session of the engine has.</summary>
    private static byte[] UnknownIndexMessage()
    {
        var message = new byte[32];
        message[0] = 4;
        message[4] = 4;
        message[5] = 3;
        message[6] = 2;
        message[7] = 1;
        return message;
    }
}
