using System.Buffers.Binary;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// <c>struct virtio_net_hdr</c> (include/uapi/linux/virtio_net.h), the 10 bytes in front of every packet on a TUN
/// opened with IFF_VNET_HDR, in host byte order (no TUNSETVNETLE): how the kernel left a super-packet for us to cut
/// (reads) and how we ask it to take a coalesced one (writes). All zero: one packet whose checksums are complete.
/// </summary>
internal readonly record struct VirtioNetHeader(byte Flags, byte GsoType, ushort HeaderLength, ushort GsoSize, ushort ChecksumStart, ushort ChecksumOffset)
{
    /// <summary>sizeof(struct virtio_net_hdr), the TUN default (TUNSETVNETHDRSZ is never called).</summary>
    public const int Size = 10;

    /// <summary>VIRTIO_NET_HDR_F_NEEDS_CSUM: the layer-4 checksum at <see cref="ChecksumStart"/> + <see cref="ChecksumOffset"/> holds only the pseudo-header sum.</summary>
    public const byte NeedsChecksum = 1;

    /// <summary>VIRTIO_NET_HDR_GSO_NONE: one packet.</summary>
    public const byte GsoNone = 0;

    /// <summary>VIRTIO_NET_HDR_GSO_TCPV4.</summary>
    public const byte GsoTcpV4 = 1;

    /// <summary>VIRTIO_NET_HDR_GSO_TCPV6.</summary>
    public const byte GsoTcpV6 = 4;

    /// <summary>VIRTIO_NET_HDR_GSO_UDP_L4 (kernel 6.2 and later): UDP segmentation for IPv4 and IPv6.</summary>
    public const byte GsoUdpL4 = 5;

    /// <summary>VIRTIO_NET_HDR_GSO_ECN: the super-packet carries CWR, to be set on the first segment only.</summary>
    public const byte GsoEcn = 0x80;

    /// <summary>The header of a packet that needs nothing done.</summary>
    public static VirtioNetHeader None => default;

    /// <summary>Reads the header at the start of <paramref name="source"/> (at least <see cref="Size"/> bytes).</summary>
    public static VirtioNetHeader Read(ReadOnlySpan<byte> source) => new(
        source[0],
        source[1],
        BinaryPrimitives.ReadUInt16LittleEndian(source[2..]),
        BinaryPrimitives.ReadUInt16LittleEndian(source[4..]),
        BinaryPrimitives.ReadUInt16LittleEndian(source[6..]),
        BinaryPrimitives.ReadUInt16LittleEndian(source[8..]));

    /// <summary>Writes the header to the start of <paramref name="destination"/> (at least <see cref="Size"/> bytes).</summary>
    public void Write(Span<byte> destination)
    {
        destination[0] = Flags;
        destination[1] = GsoType;
        BinaryPrimitives.WriteUInt16LittleEndian(destination[2..], HeaderLength);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[4..], GsoSize);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[6..], ChecksumStart);
        BinaryPrimitives.WriteUInt16LittleEndian(destination[8..], ChecksumOffset);
    }
}
