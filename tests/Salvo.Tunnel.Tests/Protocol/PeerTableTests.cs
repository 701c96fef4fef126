using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Protocol;

public sealed class PeerTableTests
{
    [Fact]
    public void Find_AmongManyPeers_ReturnsThePeerWithThatKey()
    {
        var table = new PeerTable();
        var peers = Enumerable.Range(0, 1000).Select(_ => NewPeer()).ToArray();
        foreach (var peer in peers)
        {
            Assert.True(table.TryAdd(peer));
        }

        Assert.Equal(1000, table.Count);
        foreach (var peer in peers)
        {
            Assert.Same(peer, table.Find(peer.PublicKey));
        }

        Assert.Null(table.Find(WireGuardKey.GeneratePrivateKey().DerivePublicKey().Bytes));
        Assert.Null(table.Find(new byte[5]));
    }

    [Fact]
    public void TryAdd_SameKeyTwice_KeepsTheFirst()
    {
        var table = new PeerTable();
        var key = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var first = NewPeer(key);
        Assert.True(table.TryAdd(first));
        Assert.False(table.TryAdd(NewPeer(key)));
        Assert.Same(first, table.Find(key.Bytes));
        Assert.Equal(1, table.Count);
    }

    [Fact]
    public void Remove_OnePeer_OthersStayInOrder()
    {
        var table = new PeerTable();
        var peers = Enumerable.Range(0, 3).Select(_ => NewPeer()).ToArray();
        foreach (var peer in peers)
        {
            table.TryAdd(peer);
        }

        Assert.True(table.Remove(peers[1]));
        Assert.False(table.Remove(peers[1]));
        Assert.Null(table.Find(peers[1].PublicKey));
        var walked = new List<Peer>();
        foreach (var peer in table)
        {
            walked.Add(peer);
        }

        Assert.Equal([peers[0], peers[2]], walked);
    }

    [Fact]
    public void Engine_PeerConfiguredTwice_ThrowsNamingThePeer()
    {
        var key = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var peer = new PeerConfiguration { PublicKey = key, AllowedIps = [IPPrefix.Parse("10.0.0.1/32")] };
        var error = Assert.Throws<ArgumentException>(() => new TunnelEngine(
            new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey(), Peers = [peer, peer] }));
        Assert.Contains(key.ToString(), error.Message, StringComparison.Ordinal);
    }

    private static Peer NewPeer(WireGuardKey? key = null) =>
        new(key ?? WireGuardKey.GeneratePrivateKey().DerivePublicKey(), TcpFallbackMode.Off, new PeerSessionPool(TunnelCrypto.Default, _ => { }));
}
