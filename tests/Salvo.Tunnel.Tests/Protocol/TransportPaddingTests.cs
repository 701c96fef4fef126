using Salvo.Tunnel.Configuration;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Padding follows WireGuard's rule (the kernel's calculate_skb_padding): the last MTU-sized unit of a packet is padded
/// to a multiple of 16 but never past the MTU, so a packet longer than the MTU is still padded, by at most 15 bytes,
/// and a datagram never passes the 65,507 bytes UDP carries over IPv4.
/// </summary>
public sealed class TransportPaddingTests
{
    [Theory]
    [InlineData(0, 0)]
    [InlineData(1, 16)]
    [InlineData(1_400, 1_408)]
    [InlineData(1_419, 1_420)]
    [InlineData(1_420, 1_420)]
    [InlineData(1_421, 1_421 + 15)]
    [InlineData(1_500, 1_500)]
    [InlineData(1_501, 1_516)]
    [InlineData(2_840, 2_840)]
    [InlineData(2_841, 2_856)]
    [InlineData(9_001, 9_016)]
    public void TransportSize_AtMtu1420_PadsTheLastUnit(int packet, int padded)
    {
        using var engine = new TunnelEngine(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() });

        Assert.Equal(16 + padded + 16, engine.TransportSize(packet));
    }

    [Theory]
    [InlineData(65_470, 65_472)]
    [InlineData(65_474, 65_475)]
    [InlineData(65_475, 65_475)]
    public void TransportSize_NearTheLimit_NeverPassesTheLargestDatagram(int packet, int padded)
    {
        using var engine = new TunnelEngine(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey(), Mtu = 65_535 });

        Assert.Equal(16 + padded + 16, engine.TransportSize(packet));
        Assert.True(engine.TransportSize(packet) <= SendBatch.DefaultMaxDatagramSize);
    }

    [Fact]
    public void TransportSize_FollowsTheMtuTheDeviceSets()
    {
        using var engine = new TunnelEngine(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() });

        engine.Mtu = 1_500;

        Assert.Equal(16 + 1_488 + 16, engine.TransportSize(1_481));
        Assert.Equal(16 + 1_500 + 16, engine.TransportSize(1_490));
    }
}
