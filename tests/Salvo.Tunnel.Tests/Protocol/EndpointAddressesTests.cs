using System.Net;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>The set of peers' endpoint addresses that the cookie budget consults, kept by the peers as they move.</summary>
public sealed class EndpointAddressesTests
{
    private static readonly DatagramAddress s_first = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse("192.0.2.1"), 51820));
    private static readonly DatagramAddress s_second = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse("192.0.2.2"), 51820));

    [Fact]
    public void PeersSharingAnAddress_EachMovesItsOwnCount_AnyPortMatches()
    {
        var pool = new PeerSessionPool(TunnelCrypto.Default, _ => { });
        using var one = new Peer(WireGuardKey.GeneratePrivateKey().DerivePublicKey(), TcpFallbackMode.Off, pool) { Endpoint = s_first };
        using var two = new Peer(WireGuardKey.GeneratePrivateKey().DerivePublicKey(), TcpFallbackMode.Off, pool) { Endpoint = s_first.WithPort(4000) };
        Assert.True(pool.Addresses.Contains(s_first.WithPort(9)));
        Assert.Equal(1, pool.Addresses.Count);

        one.Endpoint = s_second;
        Assert.True(pool.Addresses.Contains(s_first));
        Assert.True(pool.Addresses.Contains(s_second));

        two.Dispose();
        Assert.False(pool.Addresses.Contains(s_first));
        one.Endpoint = default;
        Assert.False(pool.Addresses.Contains(s_second));
        Assert.Equal(0, pool.Addresses.Count);
    }
}
