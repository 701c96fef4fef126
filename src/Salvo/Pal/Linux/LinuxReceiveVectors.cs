using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: the pointers below address pinned arrays this object and its batch keep alive (see the constructor);
// every index stays below Count, the batch's Capacity, the size each array was made with.
/// <summary>
/// The native side of a <see cref="ReceiveBatch"/>: one mmsghdr, iovec, sockaddr and control slot per
/// buffer, all on the pinned object heap and wired up once, so each recvmmsg only resets the lengths the
/// kernel wrote. After a call, <see cref="Parse"/> turns the headers into the batch's entries, splitting
/// GRO buffers by their segment size.
/// </summary>
internal sealed unsafe class LinuxReceiveVectors
{
    /// <summary>Room for a sockaddr_in6 (28 bytes), rounded to 8.</summary>
    public const int NameStride = 32;

    /// <summary>The kernel's UDP_GRO_CNT_MAX: the most segments one coalesced buffer holds.</summary>
    public const int MaxSegmentsPerBuffer = 64;

    private readonly MMsgHdr[] _headers;
    private readonly IOVec[] _iovecs;
    private readonly byte[] _names;
    private readonly byte[] _control;

    // Headers the kernel may have written since the last reset, and the control length they were reset with:
    // the kernel writes only the headers of the messages it returns, so after a 3-datagram receive into a
    // 64-slot batch only 3 need their lengths restored.
    private int _written;
    private nuint _controlLength;

    public LinuxReceiveVectors(ReceiveBatch batch)
    {
        Count = batch.Capacity;
        _headers = GC.AllocateArray<MMsgHdr>(Count, pinned: true);
        _iovecs = GC.AllocateArray<IOVec>(Count, pinned: true);
        _names = GC.AllocateArray<byte>(Count * NameStride, pinned: true);
        _control = GC.AllocateArray<byte>(Count * ControlMessages.ReceiveStride, pinned: true);

        // Safety: every array here and batch.Buffer live on the pinned object heap and are kept alive by
        // this object and its batch, so the addresses stored in the headers stay valid for their lifetime.
        var buffer = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(batch.Buffer));
        Headers = (MMsgHdr*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_headers));
        var iovecs = (IOVec*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_iovecs));
        Names = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_names));
        Control = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_control));
        for (var i = 0; i < Count; i++)
        {
            iovecs[i].Base = buffer + ((long)i * batch.SlotStride);
            iovecs[i].Length = (nuint)batch.BufferSize;
            Headers[i].Header.IOVecs = &iovecs[i];
            Headers[i].Header.IOVecCount = 1;
            Headers[i].Header.Name = Names + (i * NameStride);
            Headers[i].Header.Control = Control + (i * ControlMessages.ReceiveStride);
        }

        _written = Count;
    }

    public int Count { get; }

    public MMsgHdr* Headers { get; }

    public byte* Names { get; }

    public byte* Control { get; }

    /// <summary>Restores the in/out fields the kernel overwrote in the last call, ready for a receive into every header.</summary>
    /// <param name="wantControl">Whether any control message (GRO, packet info, ECN) is enabled on the socket.</param>
    public void Reset(bool wantControl)
    {
        var controlLength = wantControl ? (nuint)ControlMessages.ReceiveStride : 0;
        if (controlLength != _controlLength)
        {
            _controlLength = controlLength;
            _written = Count;
        }

        var dirty = _written;
        _written = 0;
        for (var i = 0; i < dirty; i++)
        {
            ref var header = ref Headers[i].Header;
            header.NameLength = NameStride;
            header.ControlLength = controlLength;
            header.Flags = 0;
            Headers[i].Length = 0;
        }
    }

    /// <summary>Fills the batch's entries from <paramref name="received"/> headers; returns the datagram count.</summary>
    public int Parse(ReceiveBatch batch, int received, int localPort, out long bytes, out int truncated)
    {
        _written = received;
        bytes = 0;
        truncated = 0;
        var count = 0;
        var entries = batch.Entries;
        for (var i = 0; i < received; i++)
        {
            ref readonly var header = ref Headers[i];
            var length = (int)header.Length;
            var isTruncated = (header.Header.Flags & Constants.MSG_TRUNC) != 0;
            // Safety: i < received <= Count; the kernel writes NameLength and ControlLength no larger than the NameStride
            // and ReceiveStride that Reset offered (recvmsg(2): msg_namelen and msg_controllen are value-result).
            var source = LinuxSockaddr.Read(new ReadOnlySpan<byte>(Names + (i * NameStride), (int)header.Header.NameLength));
            var metadata = header.Header.ControlLength == 0
                ? default
                : ReadControl(new ReadOnlySpan<byte>(Control + (i * ControlMessages.ReceiveStride), (int)header.Header.ControlLength), localPort);

            // With GRO, one buffer holds segments of equal size (the last may be shorter).
            var segment = metadata.SegmentSize > 0 && metadata.SegmentSize < length ? metadata.SegmentSize : Math.Max(length, 1);
            var offset = i * batch.SlotStride;
            var end = offset + length;
            do
            {
                var segmentLength = Math.Min(segment, end - offset);
                ref var entry = ref entries[count++];
                entry.Offset = offset;
                entry.Length = segmentLength;
                entry.Address = source;
                entry.LocalAddress = metadata.Destination;
                entry.InterfaceIndex = metadata.InterfaceIndex;
                entry.Ecn = metadata.Ecn;
                // A cut buffer cuts only its last segment.
                entry.IsTruncated = isTruncated && offset + segmentLength >= end;
                truncated += entry.IsTruncated ? 1 : 0;
                offset += segmentLength;
            }
            while (offset < end);

            bytes += length;
        }

        return count;
    }

    /// <summary>The GRO segment size, destination, interface and ECN bits in one datagram's control messages.</summary>
    internal static Metadata ReadControl(ReadOnlySpan<byte> control, int localPort)
    {
        var metadata = default(Metadata);
        foreach (var message in ControlMessages.Enumerate(control))
        {
            switch ((message.Level, message.Type))
            {
                case (Constants.SOL_UDP, Constants.UDP_GRO):
                    metadata.SegmentSize = ControlMessages.ReadInt32(message.Data);
                    break;
                case (Constants.IPPROTO_IP, Constants.IP_PKTINFO) when message.Data.Length >= 12:
                    // struct in_pktinfo { int ipi_ifindex; in_addr ipi_spec_dst; in_addr ipi_addr; }
                    metadata.InterfaceIndex = ControlMessages.ReadInt32(message.Data);
                    metadata.Destination = DatagramAddress.FromIPv4Bytes(message.Data.Slice(8, 4), localPort);
                    break;
                case (Constants.IPPROTO_IPV6, Constants.IPV6_PKTINFO) when message.Data.Length >= 20:
                    // struct in6_pktinfo { in6_addr ipi6_addr; int ipi6_ifindex; }
                    metadata.InterfaceIndex = ControlMessages.ReadInt32(message.Data[16..]);
                    metadata.Destination = DatagramAddress.FromIPv6Bytes(message.Data[..16], localPort);
                    break;
                case (Constants.IPPROTO_IP, Constants.IP_TOS):
                case (Constants.IPPROTO_IPV6, Constants.IPV6_TCLASS):
                    metadata.Ecn = (EcnCodepoint)(ControlMessages.ReadInt32(message.Data) & 3);
                    break;
            }
        }

        return metadata;
    }

    internal struct Metadata
    {
        public int SegmentSize;
        public DatagramAddress Destination;
        public int InterfaceIndex;
        public EcnCodepoint Ecn;
    }
}
