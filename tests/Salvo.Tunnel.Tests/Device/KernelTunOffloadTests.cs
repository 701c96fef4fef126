using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Tests.Offload;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// A real TUN interface in a lab namespace (198.19.0.2/24 on it, so the kernel routes 198.19.0.1 into it), with
/// offloads on and off: a GSO send from a socket comes out of <see cref="KernelTunDevice.ReadBatch"/> as MTU-sized
/// datagrams with valid checksums (cut here when the kernel handed over one super-packet), and datagrams of one flow
/// written to the device reach a socket whole (joined into one super-packet first when offloads are on).
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class KernelTunOffloadTests
{
    private const string InterfaceName = "otun0";
    private const int DatagramSize = 1_300;
    private const int Datagrams = 3;

    [RequiresFact(Requirement.Netns)]
    public void ReadBatch_WithOffloads_CutsTheKernelsUdpSuperPacket() => ReadBatch_GsoSend_ArrivesAsDatagramsWithValidChecksums(offloads: true);

    [RequiresFact(Requirement.Netns)]
    public void ReadBatch_WithoutOffloads_ReadsEachDatagram() => ReadBatch_GsoSend_ArrivesAsDatagramsWithValidChecksums(offloads: false);

    [RequiresFact(Requirement.Netns)]
    public void Write_WithOffloads_JoinsOneFlowIntoOneWrite() => Write_DatagramsOfOneFlow_ReachTheSocketWhole(offloads: true);

    [RequiresFact(Requirement.Netns)]
    public void Write_WithoutOffloads_WritesEachDatagram() => Write_DatagramsOfOneFlow_ReachTheSocketWhole(offloads: false);

    private static void ReadBatch_GsoSend_ArrivesAsDatagramsWithValidChecksums(bool offloads)
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA, offloads);
        using var socket = NetworkLab.InHost(lab.HostA, () => DatagramSocket.Bind(new IPEndPoint(TestPackets.DestinationV4, 0)));
        var payloads = Enumerable.Range(0, Datagrams).Select(i => TestPackets.Payload(DatagramSize, i)).ToList();
        var batch = new SendBatch(Datagrams, DatagramSize);
        foreach (var payload in payloads)
        {
            batch.Add(payload, DatagramAddress.FromIPEndPoint(new IPEndPoint(TestPackets.SourceV4, 5201)));
        }

        Assert.Equal(Datagrams, socket.Send(batch));

        var received = new List<byte[]>();
        var packets = new PacketBatch(64, 1_500);
        for (var attempt = 0; attempt < 32 && received.Count < Datagrams; attempt++)
        {
            Assert.True(device.ReadBatch(packets, TimeSpan.FromSeconds(5)) > 0, "nothing came out of the device within 5 s");
            for (var i = 0; i < packets.Count; i++)
            {
                // The kernel may send its own packets on a new interface (IPv6 neighbour discovery); ours are IPv4 UDP.
                if (packets[i][0] == 0x45 && packets[i][9] == (byte)ProtocolType.Udp)
                {
                    received.Add(packets[i].ToArray());
                }
            }
        }

        Assert.Equal(Datagrams, received.Count);
        for (var i = 0; i < Datagrams; i++)
        {
            Assert.True(TestPackets.ChecksumsValid(received[i]), $"datagram {i}: a checksum is wrong");
            Assert.Equal(payloads[i], received[i][28..]);
        }

        Assert.Equal(offloads ? 1 : 0, device.SuperPacketsRead);
        Assert.Equal(0, device.MalformedReads);
    }

    private static void Write_DatagramsOfOneFlow_ReachTheSocketWhole(bool offloads)
    {
        using var lab = new NetworkLab();
        using var device = OpenConfigured(lab.HostA, offloads);
        using var socket = NetworkLab.InHost(lab.HostA, () =>
        {
            var bound = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp) { ReceiveTimeout = 5_000 };
            bound.Bind(new IPEndPoint(TestPackets.DestinationV4, 5201));
            return bound;
        });
        var payloads = Enumerable.Range(0, Datagrams).Select(i => TestPackets.Payload(DatagramSize, i)).ToList();

        foreach (var (payload, i) in payloads.Select((p, i) => (p, i)))
        {
            Assert.True(device.Write(TestPackets.Udp(ipv6: false, payload, ipId: (ushort)(100 + i))));
        }

        Assert.Equal(0, device.Flush());

        var buffer = new byte[65_536];
        foreach (var payload in payloads)
        {
            var length = socket.Receive(buffer);
            Assert.Equal(payload, buffer[..length]);
        }

        Assert.Equal(offloads ? 1 : 0, device.SuperPacketsWritten);
    }

    private static KernelTunDevice OpenConfigured(string host, bool offloads)
    {
        var device = NetworkLab.InHost(host, () => KernelTunDevice.Open(InterfaceName, offloads));
        try
        {
            Assert.Equal(offloads, device.Offloads.Contains("USO4/6", StringComparison.Ordinal));
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
