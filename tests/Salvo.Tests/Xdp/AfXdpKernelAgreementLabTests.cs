using System.Buffers.Binary;
using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Tests.Lab;
using static Salvo.Tests.Xdp.UdpReceiveCheckTests;

namespace Salvo.Tests.Xdp;

/// <summary>
/// Each row of the receive-check table over a real link: host B puts the raw frame on the veth pair (AF_PACKET), and
/// host A receives it on a kernel socket, then on an AF_XDP socket bound to the same address and port; both must deliver
/// it (with the same payload) or both drop it, the AF_XDP socket counting the drop by its reason.
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class AfXdpKernelAgreementLabTests
{
    private static readonly byte[] s_payload = "row payload"u8.ToArray();
    private static readonly byte[] s_marker = "marker"u8.ToArray();

    public static TheoryData<string> Rows =>
    [
        "loopback source", "own address source", "unspecified source", "zero network source", "multicast source", "limited broadcast source",
        "wrong UDP checksum", "corrupt payload", "zero IPv4 UDP checksum", "another host's MAC", "broadcast MAC",
        "VLAN tagged", "priority tagged", "UDP length beyond the IP payload", "bytes after the UDP datagram", "fragment",
    ];

    [AfXdpLabTheory]
    [MemberData(nameof(Rows))]
    public void RawFrame_IsDeliveredOrDroppedByAfXdpAsByTheKernel(string row)
    {
        using var lab = new NetworkLab();
        var (hostMac, peerMac) = Macs(lab);
        using var wire = PacketSocket.Open(lab.HostB, lab.InterfaceB);

        int port;
        IReadOnlyList<byte[]> byKernel;
        using (var kernel = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.LinuxBatched))
        {
            port = kernel.LocalEndPoint.Port;
            byKernel = DeliveredBeforeMarker(kernel, wire, Build(row, port, hostMac, peerMac), Marker(port, hostMac, peerMac));
        }

        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp, port: port);
        var byAfXdp = DeliveredBeforeMarker(xdp, wire, Build(row, port, hostMac, peerMac), Marker(port, hostMac, peerMac));

        Assert.Equal(byKernel.Count, byAfXdp.Count);
        Assert.Equal(byKernel.Select(Convert.ToHexString), byAfXdp.Select(Convert.ToHexString));
        var drops = xdp.GetStatistics().MalformedFramesByReason;
        if (row == "fragment")
        {
            // The program hands fragments to the kernel, which holds this one for reassembly: nothing reaches the rings.
            Assert.Equal(0, drops.Total);
        }
        else if (byKernel.Count == 0)
        {
            Assert.Equal(1, drops.Total);
        }
        else
        {
            Assert.Equal(s_payload, Assert.Single(byKernel));
            Assert.Equal(0, drops.Total);
        }
    }

    [AfXdpLabFact]
    public void SourcePortZero_TheKernelDelivers_AfXdpDropsAndCountsIt()
    {
        // The one deliberate difference: no reply can go to port 0 (the kernel itself refuses to send there).
        using var lab = new NetworkLab();
        var (hostMac, peerMac) = Macs(lab);
        using var wire = PacketSocket.Open(lab.HostB, lab.InterfaceB);
        int port;
        using (var kernel = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.LinuxBatched))
        {
            port = kernel.LocalEndPoint.Port;
            var frame = Frame(Address(NetworkLab.AddressB, 0), Address(NetworkLab.AddressA, port), hostMac, peerMac, s_payload);
            Assert.Single(DeliveredBeforeMarker(kernel, wire, frame, Marker(port, hostMac, peerMac)));
        }

        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp, port: port);
        var again = Frame(Address(NetworkLab.AddressB, 0), Address(NetworkLab.AddressA, port), hostMac, peerMac, s_payload);
        Assert.Empty(DeliveredBeforeMarker(xdp, wire, again, Marker(port, hostMac, peerMac)));
        Assert.Equal(1, xdp.GetStatistics().MalformedFramesByReason[FrameDropReason.ZeroSourcePort]);
    }

    [AfXdpLabFact]
    public void AfXdpSocket_RefusesToSendToPortZero_AsTheKernelDoes()
    {
        using var lab = new NetworkLab();
        using var kernel = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.LinuxBatched);
        using var xdp = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.AfXdp);
        var pal = (AfXdpDatagramPal)xdp.Pal;
        var send = new SendBatch(capacity: 1, maxDatagramSize: 64);

        // Until A's MAC is known a datagram leaves through the UDP socket, whose kernel refuses port 0 on its own: send to
        // A's real port until one leaves as a frame, so the refusal below is the frame path's.
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            var before = pal.KernelSends;
            send.Clear();
            send.Add([9], DatagramAddress.FromIPEndPoint(kernel.LocalEndPoint));
            Assert.Equal(1, xdp.Send(send));
            if (pal.KernelSends == before)
            {
                break;
            }

            Thread.Sleep(60);
        }

        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), "the AF_XDP socket never learned its peer's MAC");
        foreach (var socket in new[] { kernel, xdp })
        {
            send.Clear();
            send.Add([1, 2, 3], Address(NetworkLab.AddressA, 0));
            Assert.Equal(0, socket.Send(send));
            Assert.Equal(SocketError.InvalidArgument, send.FirstError);
            Assert.Equal(1, socket.GetStatistics().SendErrors);
        }
    }

    /// <summary>Sends <paramref name="frame"/>, then a good marker frame behind it on the same queue; returns what arrived before the marker.</summary>
    private static List<byte[]> DeliveredBeforeMarker(DatagramSocket socket, PacketSocket wire, byte[] frame, byte[] marker)
    {
        wire.Send(frame);
        wire.Send(marker);
        var delivered = new List<byte[]>();
        var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            socket.Receive(batch, TimeSpan.FromMilliseconds(500));
            foreach (var datagram in batch)
            {
                if (datagram.Payload.SequenceEqual(s_marker))
                {
                    return delivered;
                }

                delivered.Add(datagram.Payload.ToArray());
            }
        }

        throw new TimeoutException($"the marker frame never reached the {socket.Backend} socket");
    }

    private static (MacAddress Host, MacAddress Peer) Macs(NetworkLab lab) => (
        MacAddress.Parse(NetworkLab.Exec(lab.HostA, "cat", $"/sys/class/net/{lab.InterfaceA}/address").Trim()),
        MacAddress.Parse(NetworkLab.Exec(lab.HostB, "cat", $"/sys/class/net/{lab.InterfaceB}/address").Trim()));

    private static byte[] Marker(int port, MacAddress hostMac, MacAddress peerMac) =>
        Frame(Address(NetworkLab.AddressB, 40001), Address(NetworkLab.AddressA, port), hostMac, peerMac, s_marker);

    private static byte[] Build(string row, int port, MacAddress hostMac, MacAddress peerMac)
    {
        var to = Address(NetworkLab.AddressA, port);
        byte[] From(string source, MacAddress? destinationMac = null) => Frame(Address(source, 40000), to, destinationMac ?? hostMac, peerMac, s_payload);
        var good = From(NetworkLab.AddressB);
        switch (row)
        {
            case "loopback source":
                return From("127.0.0.1");
            case "own address source":
                return From(NetworkLab.AddressA);
            case "unspecified source":
                return From("0.0.0.0");
            case "zero network source":
                return From("0.0.0.7");
            case "multicast source":
                return From("224.0.0.5");
            case "limited broadcast source":
                return From("255.255.255.255");
            case "wrong UDP checksum":
                good[40] ^= 0x5A;
                return good;
            case "corrupt payload":
                good[^1] ^= 0x01;
                return good;
            case "zero IPv4 UDP checksum":
                good[40] = good[41] = 0;
                return good;
            case "another host's MAC":
                return From(NetworkLab.AddressB, MacAddress.Parse("02:00:00:00:00:99"));
            case "broadcast MAC":
                return From(NetworkLab.AddressB, MacAddress.Parse("ff:ff:ff:ff:ff:ff"));
            case "VLAN tagged":
                return Tagged(good, vlanId: 100);
            case "priority tagged":
                return Tagged(good, vlanId: 0);
            case "UDP length beyond the IP payload":
                BinaryPrimitives.WriteUInt16BigEndian(good.AsSpan(38), (ushort)(8 + s_payload.Length + 1));
                return good;
            case "bytes after the UDP datagram":
                return WithTrailingBytes(good, 16, ipv6: false);
            case "fragment":
                good[20] = 0x20;
                RewriteIPv4HeaderChecksum(good);
                return good;
            default:
                throw new ArgumentOutOfRangeException(nameof(row), row, "no such row");
        }
    }
}
