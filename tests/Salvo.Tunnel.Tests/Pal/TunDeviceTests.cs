using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Pal;

namespace Salvo.Tunnel.Tests.Pal;

/// <summary>
/// The tunnel platform's TUN device in a namespace of a <see cref="NetworkLab"/>: the interface holds 198.18.5.1/24, so the
/// kernel routes packets for the rest of that /24 into the device, and takes packets written to it as arriving there.
/// </summary>
public sealed class TunDeviceTests
{
    private const string InterfaceName = "stun0";
    private const string LocalAddress = "198.18.5.1";
    private const string RemoteAddress = "198.18.5.2";
    private const int UdpHeaderSize = 8;
    private const int IPv4HeaderSize = 20;

    [RequiresFact(Requirement.Netns)]
    public void Write_UdpPacketToTheInterfacesAddress_ReachesASocketThere()
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA);
        using var socket = NetworkLab.InHost(lab.HostA, () => BoundUdpSocket(LocalAddress));
        var port = ((IPEndPoint)socket.LocalEndPoint!).Port;
        byte[] payload = [1, 2, 3, 4, 5, 6, 7];

        Assert.True(device.Write([], UdpPacket(RemoteAddress, 4000, LocalAddress, port, payload)));

        var received = new byte[64];
        EndPoint from = new IPEndPoint(IPAddress.Any, 0);
        var length = socket.ReceiveFrom(received, ref from);
        Assert.Equal(payload, received[..length]);
        Assert.Equal(new IPEndPoint(IPAddress.Parse(RemoteAddress), 4000), from);
    }

    [RequiresFact(Requirement.Netns)]
    public void Read_DatagramRoutedIntoTheInterface_ArrivesAsOneWholeIPPacket()
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA);
        using var socket = NetworkLab.InHost(lab.HostA, () => BoundUdpSocket(LocalAddress));
        byte[] payload = [9, 8, 7, 6, 5];

        socket.SendTo(payload, new IPEndPoint(IPAddress.Parse(RemoteAddress), 9));

        // The kernel may send its own packets on a new interface (IPv6 neighbour discovery); ours is the IPv4 one.
        var buffer = new byte[2048];
        for (var attempt = 0; attempt < 32; attempt++)
        {
            Assert.True(device.WaitForPacket(5_000), "no packet came out of the device within 5 s");
            var length = device.TryRead(buffer);
            if (length == 0 || buffer[0] >> 4 != 4)
            {
                continue;
            }

            Assert.Equal(IPv4HeaderSize + UdpHeaderSize + payload.Length, length);
            Assert.Equal(IPAddress.Parse(RemoteAddress), new IPAddress(buffer.AsSpan(16, 4)));
            Assert.Equal(9, BinaryPrimitives.ReadUInt16BigEndian(buffer.AsSpan(IPv4HeaderSize + 2)));
            Assert.Equal(payload, buffer[(IPv4HeaderSize + UdpHeaderSize)..length]);
            return;
        }

        Assert.Fail("32 packets came out of the device, none of them the IPv4 datagram sent");
    }

    [RequiresFact(Requirement.Netns)]
    public void TryRead_NothingQueued_ReturnsZeroAtOnce()
    {
        // A link that is down carries nothing, not even the kernel's own neighbour discovery.
        using var lab = new NetworkLab();
        using var device = NetworkLab.InHost(lab.HostA, () => TunnelPlatform.Current.OpenTunDevice(InterfaceName));

        Assert.False(device.WaitForPacket(0));
        Assert.Equal(0, device.TryRead(new byte[2048]));
    }

    [RequiresFact(Requirement.Netns)]
    public void Dispose_InterfaceTheDeviceCreated_IsRemoved()
    {
        using var lab = new NetworkLab();
        var device = NetworkLab.InHost(lab.HostA, () => TunnelPlatform.Current.OpenTunDevice(InterfaceName));
        Assert.Contains(InterfaceName, NetworkLab.Exec(lab.HostA, "ip", "-o link show"), StringComparison.Ordinal);

        device.Dispose();

        Assert.DoesNotContain(InterfaceName, NetworkLab.Exec(lab.HostA, "ip", "-o link show"), StringComparison.Ordinal);
        Assert.Throws<ObjectDisposedException>(() => device.WaitForPacket(0));
        Assert.Throws<ObjectDisposedException>(() => device.TryRead(new byte[64]));
    }

    [RequiresFact(Requirement.Netns)]
    public void Open_EmptyName_KernelPicksATunName()
    {
        using var lab = new NetworkLab();
        using var device = NetworkLab.InHost(lab.HostA, () => TunnelPlatform.Current.OpenTunDevice(string.Empty));

        Assert.Matches("^tun[0-9]+$", device.Name);
        Assert.Contains(device.Name, NetworkLab.Exec(lab.HostA, "ip", "-o link show"), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Linux)]
    public void Open_NameLongerThanTheKernelTakes_FailsNamingTheLimitBeforeOpeningAnything()
    {
        var error = Assert.Throws<ArgumentException>(() => TunnelPlatform.Current.OpenTunDevice("sixteen-letters!"));

        Assert.Equal("name", error.ParamName);
        Assert.Contains("at most 15 characters", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PortableTunnelPlatform_OpenTunDevice_RefusesNamingWhatIsMissing()
    {
        var error = Assert.Throws<PlatformNotSupportedException>(() => new PortableTunnelPlatform().OpenTunDevice("salvo0"));

        Assert.Contains("/dev/net/tun", error.Message, StringComparison.Ordinal);
        Assert.Contains("salvo0", error.Message, StringComparison.Ordinal);
    }

    private static TunDevice OpenConfigured(string host)
    {
        var device = NetworkLab.InHost(host, () => TunnelPlatform.Current.OpenTunDevice(InterfaceName));
        try
        {
            Assert.Equal(InterfaceName, device.Name);
            NetworkLab.Exec(host, "ip", $"address add {LocalAddress}/24 dev {InterfaceName}");
            NetworkLab.Exec(host, "ip", $"link set dev {InterfaceName} up");
            return device;
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }

    private static Socket BoundUdpSocket(string address)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp) { ReceiveTimeout = 5_000 };
        socket.Bind(new IPEndPoint(IPAddress.Parse(address), 0));
        return socket;
    }

    /// <summary>An IPv4 UDP packet (RFC 791, RFC 768); the UDP checksum is left 0, which IPv4 allows.</summary>
    private static byte[] UdpPacket(string source, int sourcePort, string destination, int destinationPort, byte[] payload)
    {
        var packet = new byte[IPv4HeaderSize + UdpHeaderSize + payload.Length];
        packet[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        packet[8] = 64;
        packet[9] = (byte)ProtocolType.Udp;
        IPAddress.Parse(source).TryWriteBytes(packet.AsSpan(12, 4), out _);
        IPAddress.Parse(destination).TryWriteBytes(packet.AsSpan(16, 4), out _);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(10), HeaderChecksum(packet.AsSpan(0, IPv4HeaderSize)));
        var udp = packet.AsSpan(IPv4HeaderSize);
        BinaryPrimitives.WriteUInt16BigEndian(udp, (ushort)sourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(udp[2..], (ushort)destinationPort);
        BinaryPrimitives.WriteUInt16BigEndian(udp[4..], (ushort)(UdpHeaderSize + payload.Length));
        payload.CopyTo(udp[UdpHeaderSize..]);
        return packet;
    }

    private static ushort HeaderChecksum(ReadOnlySpan<byte> header)
    {
        uint sum = 0;
        for (var i = 0; i < header.Length; i += 2)
        {
            sum += BinaryPrimitives.ReadUInt16BigEndian(header[i..]);
        }

        while (sum > 0xFFFF)
        {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }

        return (ushort)~sum;
    }
}
