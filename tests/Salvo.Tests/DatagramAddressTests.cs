using System.Net;
using System.Net.Sockets;
using Salvo.Pal;

namespace Salvo.Tests;

public sealed class DatagramAddressTests
{
    [Theory]
    [InlineData("127.0.0.1", 9)]
    [InlineData("10.1.2.3", 65535)]
    [InlineData("::1", 443)]
    [InlineData("fe80::1%3", 53)]
    [InlineData("::ffff:192.0.2.1", 7)]
    public void RoundTrips_ThroughIPEndPointAndSocketAddress(string text, int port)
    {
        var endPoint = new IPEndPoint(IPAddress.Parse(text), port);
        var address = DatagramAddress.FromIPEndPoint(endPoint);
        Assert.Equal(endPoint, address.ToIPEndPoint());
        Assert.Equal(port, address.Port);
        Assert.Equal(endPoint.AddressFamily, address.Family);

        var socketAddress = endPoint.Serialize();
        Assert.Equal(address, DatagramAddress.FromSocketAddress(socketAddress));
        var written = new SocketAddress(endPoint.AddressFamily);
        address.WriteTo(written);
        Assert.Equal(endPoint, endPoint.Create(written));
    }

    [Theory]
    [InlineData("127.0.0.1", 9)]
    [InlineData("255.255.255.255", 65535)]
    [InlineData("::1", 443)]
    [InlineData("fd00:5a1::f:4240", 0)]
    [InlineData("::ffff:192.0.2.1", 7)]
    public void FromAddressBytes_SameAsCreateFromTheAddressObject(string text, int port)
    {
        var address = IPAddress.Parse(text);

        var fromBytes = DatagramAddress.FromAddressBytes(address.GetAddressBytes(), port);

        Assert.Equal(DatagramAddress.Create(address, port), fromBytes);
        Assert.Equal(new IPEndPoint(address, port), fromBytes.ToIPEndPoint());
    }

    [Fact]
    public void FromAddressBytes_AnotherLengthOrAPortOutOfRange_Throws()
    {
        Assert.Throws<ArgumentException>(() => DatagramAddress.FromAddressBytes(new byte[5], 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => DatagramAddress.FromAddressBytes(new byte[4], 65536));
        Assert.Throws<ArgumentOutOfRangeException>(() => DatagramAddress.FromAddressBytes(new byte[16], -1));
    }

    [Fact]
    public void Equality_AndHash_FollowAddressAndPort()
    {
        var a = DatagramAddress.Create(IPAddress.Loopback, 1000);
        var b = DatagramAddress.Create(IPAddress.Parse("127.0.0.1"), 1000);
        Assert.Equal(a, b);
        Assert.True(a == b);
        Assert.Equal(a.GetHashCode(), b.GetHashCode());
        Assert.NotEqual(a, a.WithPort(1001));
        Assert.NotEqual(a, a.MapToIPv6());
        Assert.NotEqual(DatagramAddress.None, a);
    }

    [Fact]
    public void MapAndUnmap_AreInverse()
    {
        var v4 = DatagramAddress.Create(IPAddress.Parse("192.0.2.7"), 53);
        var mapped = v4.MapToIPv6();
        Assert.True(mapped.IsIPv4MappedToIPv6);
        Assert.Equal(AddressFamily.InterNetworkV6, mapped.Family);
        Assert.Equal(IPAddress.Parse("::ffff:192.0.2.7"), mapped.ToIPAddress());
        Assert.Equal(v4, mapped.Unmap());
        Assert.False(DatagramAddress.Create(IPAddress.IPv6Loopback, 1).IsIPv4MappedToIPv6);
    }

    [Fact]
    public void None_HasNoAddress()
    {
        Assert.False(default(DatagramAddress).HasValue);
        Assert.Equal(AddressFamily.Unspecified, DatagramAddress.None.Family);
        Assert.Equal("(none)", DatagramAddress.None.ToString());
        Assert.Throws<InvalidOperationException>(() => DatagramAddress.None.ToIPAddress());
    }

    [Fact]
    public void InvalidInput_ThrowsNamingTheParameter()
    {
        Assert.Equal("port", Assert.Throws<ArgumentOutOfRangeException>(() => DatagramAddress.Create(IPAddress.Loopback, 65536)).ParamName);
        Assert.Equal("address", Assert.Throws<ArgumentNullException>(() => DatagramAddress.Create(null!, 1)).ParamName);
        var v6 = new SocketAddress(AddressFamily.InterNetworkV6);
        Assert.Equal("socketAddress", Assert.Throws<ArgumentException>(() => DatagramAddress.Create(IPAddress.Loopback, 1).WriteTo(v6)).ParamName);
    }

    [Fact]
    public void Sockaddr_RoundTripsThroughTheLinuxLayout()
    {
        Span<byte> buffer = stackalloc byte[32];
        var v6 = DatagramAddress.Create(IPAddress.Parse("2001:db8::5"), 8080);
        Assert.Equal(28, LinuxSockaddr.Write(v6, buffer, asIPv6: true));
        Assert.Equal(v6, LinuxSockaddr.Read(buffer[..28]));

        var v4 = DatagramAddress.Create(IPAddress.Parse("198.18.0.1"), 9);
        Assert.Equal(16, LinuxSockaddr.Write(v4, buffer, asIPv6: false));
        Assert.Equal(v4, LinuxSockaddr.Read(buffer[..16]));
        Assert.Equal(28, LinuxSockaddr.Write(v4, buffer, asIPv6: true));
        Assert.Equal(v4.MapToIPv6(), LinuxSockaddr.Read(buffer[..28]));
    }
}
