using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Tests.Offload;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// A real TUN interface in a lab namespace reports its MTU as <c>ip link</c> sets it (SIOCGIFMTU), takes one
/// (SIOCSIFMTU), and a packet longer than the batch's slots (the MTU was raised since the tunnel last looked) is
/// dropped and counted, with and without offloads, while the next packet is read whole.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class KernelTunMtuTests
{
    private const string InterfaceName = "mtun0";

    [RequiresFact(Requirement.Netns)]
    public void Mtu_ReadsWhatIpLinkAndSetMtuSet()
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA, offloads: true);

        NetworkLab.Exec(lab.HostA, "ip", $"link set dev {InterfaceName} mtu 9000");
        Assert.Equal(9_000, device.Mtu);

        device.SetMtu(65_535);
        Assert.Equal(65_535, device.Mtu);
        Assert.Contains("mtu 65535", NetworkLab.Exec(lab.HostA, "ip", $"link show dev {InterfaceName}"), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.Netns)]
    public void ReadBatch_WithoutOffloads_PacketLongerThanTheSlots_IsCountedAndTheNextIsRead() => PacketLongerThanTheSlots(offloads: false);

    [RequiresFact(Requirement.Netns)]
    public void ReadBatch_WithOffloads_PacketLongerThanTheSlots_IsCountedAndTheNextIsRead() => PacketLongerThanTheSlots(offloads: true);

    private static void PacketLongerThanTheSlots(bool offloads)
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA, offloads);
        NetworkLab.Exec(lab.HostA, "ip", $"link set dev {InterfaceName} mtu 9000");
        using var socket = NetworkLab.InHost(lab.HostA, () => new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp));
        var destination = new IPEndPoint(TestPackets.SourceV4, 5201);
        socket.SendTo(TestPackets.Payload(3_000, 1), destination);
        socket.SendTo(TestPackets.Payload(1_000, 2), destination);

        var packets = new PacketBatch(64, 1_500);
        var received = new List<int>();
        for (var attempt = 0; attempt < 32 && received.Count < 1; attempt++)
        {
            device.ReadBatch(packets, TimeSpan.FromSeconds(5));
            for (var i = 0; i < packets.Count; i++)
            {
                // The kernel may send its own packets on a new interface (IPv6 neighbour discovery); ours are IPv4 UDP.
                if (packets[i][0] == 0x45 && packets[i][9] == (byte)ProtocolType.Udp)
                {
                    received.Add(packets[i].Length);
                }
            }
        }

        Assert.Equal([1_028], received);
        Assert.Equal(1, device.PacketsTooLarge);
        Assert.Equal(0, device.MalformedReads);
    }

    private static KernelTunDevice OpenConfigured(string host, bool offloads)
    {
        var device = NetworkLab.InHost(host, () => KernelTunDevice.Open(InterfaceName, offloads));
        try
        {
            NetworkLab.Exec(host, "ip", $"address add {TestPackets.DestinationV4}/24 dev {InterfaceName}");
            NetworkLab.Exec(host, "ip", $"link set dev {InterfaceName} up");
            return device;
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }
}
