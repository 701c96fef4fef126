namespace Salvo.Tunnel.Pal;

/// <summary>What a TUN device hands over undone, for the reader to do in user space (and takes undone on write).</summary>
[Flags]
internal enum TunOffloads
{
    /// <summary>Plain packets, one per read and write, checksums complete.</summary>
    None = 0,

    /// <summary>Packets may come with a partial layer-4 checksum (VIRTIO_NET_HDR_F_NEEDS_CSUM) to complete.</summary>
    Checksum = 1,

    /// <summary>TCP super-packets over IPv4 and IPv6 (TSO4, TSO6), to cut; coalesced TCP may be written.</summary>
    Tcp = 2,

    /// <summary>UDP super-packets (USO4, USO6), to cut; coalesced UDP may be written.</summary>
    Udp = 4,
}
