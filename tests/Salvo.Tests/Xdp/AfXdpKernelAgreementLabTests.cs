using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
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
    private const string AddressA6 = "2001:db8:5a1::1";
    private const string AddressB6 = "2001:db8:5a1::2";

    public static TheoryData<string> Rows =>
    [
        "loopback source", "own address source", "unspecified source", "zero network source", "multicast source", "limited broadcast source",
        "wrong UDP checksum", "corrupt payload", "zero IPv4 UDP checksum", "another host's MAC", "broadcast MAC",
        "VLAN tagged", "priority tagged", "UDP length beyond the IP payload", "bytes after the UDP datagram", "fragment",
    ];

    public static TheoryData<string> IPv6Rows =>
    [
        "loopback source", "multicast source", "IPv4-mapped source", "unspecified source", "wrong UDP checksum",
        "zero IPv6 UDP checksum", "bytes after the UDP datagram",
    ];

    [RequiresTheory(Requirement.AfXdpLab)]
    [MemberData(nameof(Rows))]
    public void RawFrame_IsDeliveredOrDroppedByAfXdpAsByTheKernel(string row)
    {
        using var lab = new NetworkLab();
        AssertBothAgree(lab, NetworkLab.AddressA, row, (port, hostMac, peerMac) => Build(row, port, hostMac, peerMac), countsADrop: row != "fragment");
    }

    [RequiresTheory(Requirement.AfXdpLab)]
    [MemberData(nameof(IPv6Rows))]
    public void RawIPv6Frame_IsDeliveredOrDroppedByAfXdpAsByTheKernel(string row)
    {
        using var lab = new NetworkLab();
        // Documentation addresses, only ever inside the lab's two namespaces; nodad makes them usable at once.
        NetworkLab.Exec(lab.HostA, "ip", $"addr add {AddressA6}/64 dev {lab.InterfaceA} nodad");
        NetworkLab.Exec(lab.HostB, "ip", $"addr add {AddressB6}/64 dev {lab.InterfaceB} nodad");
        AssertBothAgree(lab, AddressA6, row, (port, hostMac, peerMac) => BuildIPv6(row, port, hostMac, peerMac), countsADrop: true);
    }

    /// <summary>
    /// Sends the row's frame to a kernel socket on <paramref name="local"/>, then to an AF_XDP socket on the same address
    /// and port, and asserts they deliver the same (one datagram with the row's payload, or nothing); a drop must be
    /// counted by the AF_XDP socket where the frame reaches its rings (<paramref name="countsADrop"/>).
    /// </summary>
    private static void AssertBothAgree(NetworkLab lab, string local, string row, Func<int, MacAddress, MacAddress, byte[]> build, bool countsADrop)
    {
        var (hostMac, peerMac) = Macs(lab);
        using var wire = PacketSocket.Open(lab.HostB, lab.InterfaceB);
        var peer = local == AddressA6 ? AddressB6 : NetworkLab.AddressB;

        int port;
        IReadOnlyList<byte[]> byKernel;
        using (var kernel = AfXdpLab.Open(lab.HostA, local, DatagramBackend.LinuxBatched))
        {
            port = kernel.LocalEndPoint.Port;
            byKernel = DeliveredBeforeMarker(kernel, wire, build(port, hostMac, peerMac), Marker(peer, local, port, hostMac, peerMac));
        }

        using var xdp = AfXdpLab.Open(lab.HostA, local, DatagramBackend.AfXdp, port: port);
        var byAfXdp = DeliveredBeforeMarker(xdp, wire, build(port, hostMac, peerMac), Marker(peer, local, port, hostMac, peerMac));

        Assert.True(byKernel.Count == byAfXdp.Count, $"{row}: the kernel delivered {byKernel.Count}, AF_XDP {byAfXdp.Count}");
        Assert.Equal(byKernel.Select(Convert.ToHexString), byAfXdp.Select(Convert.ToHexString));
        var drops = xdp.GetStatistics().MalformedFramesByReason;
        if (byKernel.Count != 0)
        {
            Assert.Equal(s_payload, Assert.Single(byKernel));
            Assert.Equal(0, drops.Total);
        }
        else
        {
            // A fragment goes to the kernel (the program passes it), which holds it for reassembly: nothing reaches the rings.
            Assert.Equal(countsADrop ? 1 : 0, drops.Total);
        }
    }

    [RequiresFact(Requirement.AfXdpLab)]
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
            Assert.Single(DeliveredBeforeMarker(kernel, wire, frame, Marker(NetworkLab.AddressB, NetworkLab.AddressA, port, hostMac, peerMac)));
        }

        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp, port: port);
        var again = Frame(Address(NetworkLab.AddressB, 0), Address(NetworkLab.AddressA, port), hostMac, peerMac, s_payload);
        Assert.Empty(DeliveredBeforeMarker(xdp, wire, again, Marker(NetworkLab.AddressB, NetworkLab.AddressA, port, hostMac, peerMac)));
        Assert.Equal(1, xdp.GetStatistics().MalformedFramesByReason[FrameDropReason.ZeroSourcePort]);
    }

    [RequiresFact(Requirement.AfXdpLab)]
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

    private static byte[] Marker(string peer, string local, int port, MacAddress hostMac, MacAddress peerMac) =>
        Frame(Address(peer, 40001), Address(local, port), hostMac, peerMac, s_marker);

    private static byte[] BuildIPv6(string row, int port, MacAddress hostMac, MacAddress peerMac)
    {
        var good = Frame(Address(AddressB6, 40000), Address(AddressA6, port), hostMac, peerMac, s_payload);
        byte[] From(string source)
        {
            IPAddress.Parse(source).GetAddressBytes().CopyTo(good, 22);
            RewriteUdpChecksum(good, 54, ipv6: true, pseudoLength: 8 + s_payload.Length);
            return good;
        }

        switch (row)
        {
            case "loopback source":
                return From("::1");
            case "multicast source":
                return From("ff02::1");
            case "IPv4-mapped source":
                return From("::ffff:198.18.0.2");
            case "unspecified source":
                return From("::");
            case "wrong UDP checksum":
                good[60] ^= 0x5A;
                return good;
            case "zero IPv6 UDP checksum":
                good[60] = good[61] = 0;
                return good;
            case "bytes after the UDP datagram":
                return WithTrailingBytes(good, 16, ipv6: true);
            default:
                throw new ArgumentOutOfRangeException(nameof(row), row, "no such row");
        }
    }

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
