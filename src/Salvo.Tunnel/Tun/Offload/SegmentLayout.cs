namespace Salvo.Tunnel.Offload;

/// <summary>
/// Where one super-packet read from the TUN device cuts: the headers every segment repeats, the payload bytes per
/// segment and how many segments come out. Worked out once per read by <see cref="TunSegmentation.TryPlan"/>.
/// </summary>
internal readonly record struct SegmentLayout(
    bool IsIPv6, byte Protocol, int IPHeaderLength, int HeadersLength, int SegmentSize, int Count, int PacketLength, VirtioNetHeader Header)
{
    /// <summary>IPPROTO_TCP.</summary>
    public const byte Tcp = 6;

    /// <summary>IPPROTO_UDP.</summary>
    public const byte Udp = 17;

    /// <summary>Whether the read was one packet already (GSO_NONE): it is passed on whole, its checksum completed if asked.</summary>
    public bool IsSinglePacket => Header.GsoType == VirtioNetHeader.GsoNone;
}
