using System.Net;
using System.Net.Sockets;

namespace Salvo.Pal;

/// <summary>
/// The checks of the kernel's UDP receive that need to know the host: the interface's MAC, the host's own IPv4 addresses
/// and subnet broadcasts, and the socket's address and port; the rest are <see cref="UdpFrameParser"/>'s. What the
/// host knows is taken once, when the socket opens. Allocation-free per frame.
/// </summary>
internal sealed class UdpReceivePolicy
{
    private readonly MacAddress _interfaceMac;
    private readonly DatagramAddress _local;
    private readonly DatagramAddress[] _ownAddresses;
    private readonly DatagramAddress[] _broadcasts;
    private readonly bool _dropUnicastInL2Multicast;
    private readonly bool _acceptPseudoHeaderChecksum;

    /// <param name="interfaceMac">The MAC of the interface the socket receives on.</param>
    /// <param name="local">The socket's address and port.</param>
    /// <param name="ownAddresses">The host's own IPv4 addresses, on every interface: a source among them is martian.</param>
    /// <param name="subnetBroadcasts">The subnet broadcast addresses of the host's IPv4 networks: a source among them is a group.</param>
    /// <param name="dropUnicastInL2Multicast">
    /// The drop_unicast_in_l2_multicast sysctl for the interface's family: whether a datagram to this unicast address
    /// in a broadcast or multicast Ethernet frame is dropped (the kernel's default, 0, delivers it).
    /// </param>
    /// <param name="acceptPseudoHeaderChecksum">See <see cref="UdpFrameParser.TryParse"/>.</param>
    public UdpReceivePolicy(
        MacAddress interfaceMac, DatagramAddress local, IEnumerable<IPAddress> ownAddresses, IEnumerable<IPAddress> subnetBroadcasts,
        bool dropUnicastInL2Multicast, bool acceptPseudoHeaderChecksum)
    {
        _interfaceMac = interfaceMac;
        _local = Unscoped(local.Unmap());
        _ownAddresses = [.. ownAddresses.Where(a => a.AddressFamily == AddressFamily.InterNetwork).Select(a => DatagramAddress.Create(a, 0))];
        _broadcasts = [.. subnetBroadcasts.Where(a => a.AddressFamily == AddressFamily.InterNetwork).Select(a => DatagramAddress.Create(a, 0))];
        _dropUnicastInL2Multicast = dropUnicastInL2Multicast;
        _acceptPseudoHeaderChecksum = acceptPseudoHeaderChecksum;
    }

    /// <summary>The verdict on <paramref name="frame"/> for this socket: <see cref="UdpFrameStatus.Ok"/> when the kernel would deliver it.</summary>
    public UdpFrameStatus Admit(ReadOnlySpan<byte> frame, out ParsedUdpFrame parsed)
    {
        parsed = default;
        if (frame.Length >= MacAddress.Length && MacAddress.Read(frame) != _interfaceMac)
        {
            // The group bit (the first byte's lowest) marks broadcast and multicast. Another host's unicast MAC is
            // PACKET_OTHERHOST, dropped first thing by IP (net/ipv4/ip_input.c, ip_rcv_core; net/ipv6/ip6_input.c); a
            // unicast IP destination in a group frame is delivered unless drop_unicast_in_l2_multicast is set
            // (ip_rcv_finish_core).
            if ((frame[0] & 1) == 0 || _dropUnicastInL2Multicast)
            {
                return UdpFrameStatus.OtherHost;
            }
        }

        var status = UdpFrameParser.TryParse(frame, out parsed, _acceptPseudoHeaderChecksum);
        if (status != UdpFrameStatus.Ok)
        {
            return status;
        }

        if (parsed.Destination != _local)
        {
            return UdpFrameStatus.OtherDestination;
        }

        var source = parsed.Source.WithPort(0);
        if (source.Family == AddressFamily.InterNetwork)
        {
            // fib_validate_source (net/ipv4/fib_frontend.c) refuses a source that is one of the host's own addresses
            // (accept_local, off by default, is the exception); a subnet broadcast source is refused there too when
            // rp_filter is on (its route is RTN_BROADCAST).
            if (Array.IndexOf(_ownAddresses, source) >= 0)
            {
                parsed = default;
                return UdpFrameStatus.MartianSource;
            }

            if (Array.IndexOf(_broadcasts, source) >= 0)
            {
                parsed = default;
                return UdpFrameStatus.MulticastSource;
            }
        }

        return UdpFrameStatus.Ok;
    }

    /// <summary>The address with no IPv6 scope: frames carry none, so the bound address is compared without it.</summary>
    private static DatagramAddress Unscoped(DatagramAddress address)
    {
        if (address.Family != AddressFamily.InterNetworkV6)
        {
            return address;
        }

        Span<byte> bytes = stackalloc byte[16];
        address.WriteAddressBytes(bytes);
        return DatagramAddress.FromIPv6Bytes(bytes, address.Port);
    }
}
