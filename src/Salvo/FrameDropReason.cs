namespace Salvo;

/// <summary>
/// Why a backend that parses frames itself (<see cref="DatagramBackend.AfXdp"/>) dropped a frame for its port instead
/// of delivering it: the checks the kernel's own UDP receive makes, each counted in
/// <see cref="DatagramSocketStatistics.MalformedFramesByReason"/>. Backends that leave parsing to the kernel count none.
/// </summary>
public enum FrameDropReason
{
    /// <summary>The frame ends before a header, or before the length its IP header declares.</summary>
    Truncated = 1,

    /// <summary>Neither IPv4 nor IPv6.</summary>
    NotIP = 2,

    /// <summary>IP, but not UDP (or IPv6 with an extension header first).</summary>
    NotUdp = 3,

    /// <summary>An IPv4 fragment: the datagram is not whole in this frame.</summary>
    Fragment = 4,

    /// <summary>The IP header is malformed: wrong version, IHL below 5, or a total length shorter than its headers.</summary>
    MalformedIP = 5,

    /// <summary>The IPv4 header checksum does not verify.</summary>
    BadIPChecksum = 6,

    /// <summary>The UDP length is below 8 or longer than the IP payload (a shorter one is trimmed to and delivered, as the kernel does).</summary>
    MalformedUdp = 7,

    /// <summary>The UDP checksum does not verify, or is absent (zero) over IPv6, which RFC 8200 section 8.1 forbids.</summary>
    BadUdpChecksum = 8,

    /// <summary>An 802.1Q tag with a VLAN id: the frame belongs to a VLAN, not to the untagged interface the socket is on.</summary>
    VlanTagged = 9,

    /// <summary>The destination MAC is another host's (the frame reached this one through a promiscuous interface or a bridge).</summary>
    OtherHost = 10,

    /// <summary>
    /// A source no packet from the network can have: loopback (127.0.0.0/8, ::1), 0.0.0.0, or one of this host's own
    /// IPv4 addresses.
    /// </summary>
    MartianSource = 11,

    /// <summary>A multicast or broadcast source (224.0.0.0/4, 255.255.255.255, a subnet broadcast of this host, ff00::/8): a reply would go to a group.</summary>
    MulticastSource = 12,

    /// <summary>Source port 0: no reply can be sent to it (the kernel refuses to send to port 0).</summary>
    ZeroSourcePort = 13,

    /// <summary>The datagram is for another address or port than the socket's.</summary>
    OtherDestination = 14,
}
