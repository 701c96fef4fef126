using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: the pointers below address pinned arrays this object and its batch keep alive (see the constructor);
// Prepare writes at most Capacity messages, each within its own NameStride and SendStride slots.
/// <summary>
/// The native side of a <see cref="SendBatch"/>: mmsghdr, iovec, sockaddr and control slots on the pinned
/// heap. <see cref="Prepare"/> turns entries into messages: with GSO, a run of entries to one destination
/// with one size (the last may be shorter), contiguous in the arena, becomes one message carrying a
/// UDP_SEGMENT control message, which the kernel cuts back into datagrams.
/// </summary>
internal sealed unsafe class LinuxSendVectors
{
    /// <summary>The kernel's UDP_MAX_SEGMENTS.</summary>
    public const int MaxSegments = 64;

    private readonly MMsgHdr[] _headers;
    private readonly IOVec[] _iovecs;
    private readonly byte[] _names;
    private readonly byte[] _control;
    private readonly int[] _firstEntry;
    private readonly int[] _entryCount;
    private readonly byte* _arena;

    /// <summary>A reusable destination for the datagrams the backend sends one at a time, made on first use.</summary>
    public System.Net.SocketAddress? DestinationHolder { get; set; }

    public LinuxSendVectors(SendBatch batch)
    {
        var count = batch.Capacity;
        _headers = GC.AllocateArray<MMsgHdr>(count, pinned: true);
        _iovecs = GC.AllocateArray<IOVec>(count, pinned: true);
        _names = GC.AllocateArray<byte>(count * LinuxReceiveVectors.NameStride, pinned: true);
        _control = GC.AllocateArray<byte>(count * ControlMessages.SendStride, pinned: true);
        _firstEntry = new int[count];
        _entryCount = new int[count];

        // Safety: all of these arrays are on the pinned object heap and outlive every call that uses them
        // (this object is held by its batch, which holds the arena).
        _arena = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(batch.Arena));
        Headers = (MMsgHdr*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_headers));
        IOVecs = (IOVec*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_iovecs));
        Names = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_names));
        Control = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_control));
    }

    public MMsgHdr* Headers { get; }

    public IOVec* IOVecs { get; }

    public byte* Names { get; }

    public byte* Control { get; }

    /// <summary>Messages built by the last <see cref="Prepare"/>.</summary>
    public int MessageCount { get; private set; }

    /// <summary>Test hook: write a UDP_SEGMENT control message the kernel must reject (EINVAL), to exercise the fallback.</summary>
    internal bool CorruptSegmentControlForTesting { get; set; }

    public int FirstEntry(int message) => _firstEntry[message];

    public int EntryCount(int message) => _entryCount[message];

    public bool IsSegmented(int message) => _entryCount[message] > 1;

    /// <summary>Builds messages for entries from <paramref name="startEntry"/> on.</summary>
    /// <param name="batch">The batch.</param>
    /// <param name="startEntry">The first entry still to send.</param>
    /// <param name="socketIsIPv6">Write IPv4 destinations IPv4-mapped (dual-stack socket).</param>
    /// <param name="gso">Coalesce runs into GSO messages.</param>
    /// <param name="maxGsoBytes">The most payload bytes one GSO message may carry.</param>
    public void Prepare(SendBatch batch, int startEntry, bool socketIsIPv6, bool gso, int maxGsoBytes)
    {
        var entries = batch.Entries;
        var messages = 0;
        var i = startEntry;
        while (i < batch.Count)
        {
            ref readonly var first = ref entries[i];
            var run = 1;
            var runBytes = first.Length;
            if (gso && first.Length > 0)
            {
                // Extend the run while the next entry goes to the same place with the same size, and the
                // previous one was not already the short tail.
                while (i + run < batch.Count && run < MaxSegments)
                {
                    ref readonly var next = ref entries[i + run];
                    if (next.Length == 0 || next.Length > first.Length || entries[i + run - 1].Length != first.Length
                        || runBytes + next.Length > maxGsoBytes || !SameRoute(first, next)
                        || next.Offset != entries[i + run - 1].Offset + entries[i + run - 1].Length)
                    {
                        break;
                    }

                    runBytes += next.Length;
                    run++;
                }
            }

            BuildMessage(messages, first, runBytes, run > 1 ? first.Length : 0, socketIsIPv6);
            _firstEntry[messages] = i;
            _entryCount[messages] = run;
            messages++;
            i += run;
        }

        MessageCount = messages;
    }

    private static bool SameRoute(in DatagramEntry a, in DatagramEntry b) =>
        a.Address == b.Address && a.LocalAddress == b.LocalAddress && a.Ecn == b.Ecn;

    private void BuildMessage(int index, in DatagramEntry first, int bytes, int segmentSize, bool socketIsIPv6)
    {
        IOVecs[index].Base = _arena + first.Offset;
        IOVecs[index].Length = (nuint)bytes;
        ref var header = ref Headers[index].Header;
        header.IOVecs = &IOVecs[index];
        header.IOVecCount = 1;
        var name = Names + (index * LinuxReceiveVectors.NameStride);
        var nameLength = LinuxSockaddr.Write(first.Address, new Span<byte>(name, LinuxReceiveVectors.NameStride), socketIsIPv6);
        header.Name = nameLength == 0 ? null : name;
        header.NameLength = (uint)nameLength;
        header.Flags = 0;

        var control = new Span<byte>(Control + (index * ControlMessages.SendStride), ControlMessages.SendStride);
        var length = WriteControl(control, first, segmentSize);
        header.Control = length == 0 ? null : Control + (index * ControlMessages.SendStride);
        header.ControlLength = (nuint)length;
    }

    private int WriteControl(Span<byte> control, in DatagramEntry entry, int segmentSize)
    {
        // Most messages carry no control message at all: nothing to build (this was 0.3 % of a 64 B sender's samples).
        if (segmentSize == 0 && !entry.LocalAddress.HasValue && entry.Ecn == EcnCodepoint.NotEct)
        {
            return 0;
        }

        var length = 0;
        if (segmentSize > 0)
        {
            length = ControlMessages.WriteUInt16(control, length, Constants.SOL_UDP, Constants.UDP_SEGMENT, (ushort)segmentSize);
            if (CorruptSegmentControlForTesting)
            {
                // cmsg_len must equal CMSG_LEN(2) = 18 (net/ipv4/udp.c); 17 draws EINVAL.
                control[0] = 17;
            }
        }

        // The IPv4 path (ip_cmsg_send) reads SOL_IP messages, also for IPv4-mapped destinations.
        var toIPv4 = entry.Address.Family == AddressFamily.InterNetwork || entry.Address.IsIPv4MappedToIPv6;
        if (entry.LocalAddress.HasValue)
        {
            Span<byte> info = stackalloc byte[20];
            info.Clear();
            var source = entry.LocalAddress.Unmap();
            if (toIPv4 && source.Family == AddressFamily.InterNetwork)
            {
                // struct in_pktinfo { int ipi_ifindex; in_addr ipi_spec_dst; in_addr ipi_addr; }
                source.WriteAddressBytes(info.Slice(4, 4));
                length = ControlMessages.Write(control, length, Constants.IPPROTO_IP, Constants.IP_PKTINFO, info[..12]);
            }
            else if (!toIPv4)
            {
                // struct in6_pktinfo { in6_addr ipi6_addr; int ipi6_ifindex; }
                entry.LocalAddress.MapToIPv6().WriteAddressBytes(info[..16]);
                length = ControlMessages.Write(control, length, Constants.IPPROTO_IPV6, Constants.IPV6_PKTINFO, info);
            }
        }

        if (entry.Ecn != EcnCodepoint.NotEct)
        {
            length = toIPv4
                ? ControlMessages.WriteInt32(control, length, Constants.IPPROTO_IP, Constants.IP_TOS, (int)entry.Ecn)
                : ControlMessages.WriteInt32(control, length, Constants.IPPROTO_IPV6, Constants.IPV6_TCLASS, (int)entry.Ecn);
        }

        return length;
    }
}
