using System.Buffers.Binary;
using Salvo.Internal;

namespace Salvo.Tunnel.Offload;

/// <summary>
/// GRO in user space: decrypted TCP and UDP packets of one flow that follow each other are joined behind one set of
/// headers and written to the TUN device as one super-packet with a <see cref="VirtioNetHeader"/> (GSO type, segment
/// size, partial checksum), so the kernel takes a batch of packets in one write and one trip up its stack. A TCP
/// packet joins only in sequence, with the same headers, options and acknowledgment, and flags ACK (PSH ends the
/// super-packet, as in net/ipv4/tcp_offload.c); a UDP packet joins a flow whose datagrams have its size (a shorter one
/// ends it). Everything else is written alone, after what its flow already holds, so no flow is reordered.
/// Call <see cref="Flush"/> after each batch. Not thread-safe: one per writing thread.
/// </summary>
internal sealed class TunCoalescer
{
    /// <summary>The kernel's limit on segments in one GSO packet (UDP_MAX_SEGMENTS in include/linux/udp.h is 64 on older kernels; TCP is held to the same).</summary>
    public const int MaxSegments = 64;

    /// <summary>The largest IP packet a length field can describe.</summary>
    private const int MaxPacket = 65_535;

    private readonly byte[] _storage;
    private readonly Item[] _items;
    private readonly bool _tcp;
    private readonly bool _udp;

    /// <summary>Makes a coalescer with <paramref name="flows"/> super-packets under construction at once.</summary>
    /// <param name="flows">Flows held at once; a packet of another flow when all are taken writes them all first.</param>
    /// <param name="tcp">Whether TCP packets are joined (the device took TSO).</param>
    /// <param name="udp">Whether UDP packets are joined (the device took USO).</param>
    public TunCoalescer(int flows, bool tcp, bool udp)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(flows, 1);
        _storage = GC.AllocateUninitializedArray<byte>(flows * MaxPacket);
        _items = new Item[flows];
        _tcp = tcp;
        _udp = udp;
    }

    /// <summary>Super-packets written with more than one packet inside.</summary>
    public long Coalesced { get; private set; }

    /// <summary>Takes one decrypted packet; it is either held to be joined or written now (with what its flow held before it).</summary>
    public void Add(ReadOnlySpan<byte> bytes, ITunPacketWriter writer)
    {
        if (!InnerPacket.TryRead(bytes, out var packet) || !(packet.Protocol == SegmentLayout.Tcp ? _tcp : _udp))
        {
            writer.Write(VirtioNetHeader.None, bytes);
            return;
        }

        var slot = FindFlow(packet);
        if (slot >= 0)
        {
            if (TryAppend(ref _items[slot], Buffer(slot), packet))
            {
                return;
            }

            WriteItem(slot, writer);
        }

        if (!CanStart(packet))
        {
            writer.Write(VirtioNetHeader.None, bytes);
            return;
        }

        slot = FreeSlot();
        if (slot < 0)
        {
            Flush(writer);
            slot = 0;
        }

        bytes.CopyTo(Buffer(slot));
        var isTcp = packet.Protocol == SegmentLayout.Tcp;
        _items[slot] = new Item
        {
            InUse = true,
            Length = bytes.Length,
            IPHeaderLength = packet.IPHeaderLength,
            HeadersLength = packet.HeadersLength,
            SegmentSize = packet.PayloadLength,
            Segments = 1,
            NextSequence = isTcp ? unchecked(packet.Sequence + (uint)packet.PayloadLength) : 0,
        };
    }

    /// <summary>Writes everything held.</summary>
    public void Flush(ITunPacketWriter writer)
    {
        for (var slot = 0; slot < _items.Length; slot++)
        {
            if (_items[slot].InUse)
            {
                WriteItem(slot, writer);
            }
        }
    }

    private static bool CanStart(in InnerPacket packet)
    {
        if (packet.PayloadLength == 0 || !packet.HasValidChecksum())
        {
            return false;
        }

        // A super-packet starts only with a plain ACK segment: SYN, FIN, RST, URG, ECE and CWR each need the
        // receiver to see that segment alone, and a PSH segment is already the last of its run.
        return packet.Protocol != SegmentLayout.Tcp || packet.TcpFlags == InnerPacket.TcpAck;
    }

    private static bool TryAppend(ref Item item, Span<byte> buffer, in InnerPacket packet)
    {
        var first = buffer[..item.Length];
        var payload = packet.PayloadLength;
        if (item.IsClosed
            || payload == 0
            || payload > item.SegmentSize
            || item.Segments == MaxSegments
            || item.Length + payload > MaxPacket
            || packet.HeadersLength != item.HeadersLength
            || !packet.HasSameHeaders(first))
        {
            return false;
        }

        var isTcp = packet.Protocol == SegmentLayout.Tcp;
        if (isTcp && (packet.Sequence != item.NextSequence || (packet.TcpFlags & ~InnerPacket.TcpPsh) != InnerPacket.TcpAck))
        {
            return false;
        }

        if (!packet.HasValidChecksum())
        {
            return false;
        }

        packet.Bytes[packet.HeadersLength..].CopyTo(buffer[item.Length..]);
        item.Length += payload;
        item.Segments++;
        if (isTcp)
        {
            item.NextSequence = unchecked(item.NextSequence + (uint)payload);
            if ((packet.TcpFlags & InnerPacket.TcpPsh) != 0)
            {
                buffer[item.IPHeaderLength + 13] |= InnerPacket.TcpPsh;
                item.IsClosed = true;
            }
        }

        // A shorter segment can only be the last one: every segment but the last has the GSO size.
        item.IsClosed |= payload < item.SegmentSize;
        return true;
    }

    private void WriteItem(int slot, ITunPacketWriter writer)
    {
        ref var item = ref _items[slot];
        var packet = Buffer(slot)[..item.Length];
        item.InUse = false;
        if (item.Segments == 1)
        {
            writer.Write(VirtioNetHeader.None, packet);
            return;
        }

        var isIPv6 = packet[0] >> 4 == 6;
        var protocol = isIPv6 ? packet[6] : packet[9];
        PacketLengths.Rewrite(packet, item.IPHeaderLength, isIPv6, protocol, idOffset: 0);
        var ip = packet[..item.IPHeaderLength];
        var transport = packet[item.IPHeaderLength..];
        var checksumOffset = protocol == SegmentLayout.Tcp ? 16 : 6;

        // CHECKSUM_PARTIAL: the field holds the pseudo-header sum, not complemented, and the kernel (or whoever
        // segments the packet again) adds the rest (include/linux/skbuff.h, "CHECKSUM_PARTIAL").
        var pseudo = InternetChecksum.AddPseudoHeader(
            TunSegmentation.SourceAddress(ip, isIPv6), TunSegmentation.DestinationAddress(ip, isIPv6), protocol, transport.Length, 0);
        BinaryPrimitives.WriteUInt16BigEndian(transport[checksumOffset..], InternetChecksum.Fold(pseudo));

        var gsoType = protocol == SegmentLayout.Udp ? VirtioNetHeader.GsoUdpL4 : isIPv6 ? VirtioNetHeader.GsoTcpV6 : VirtioNetHeader.GsoTcpV4;
        var header = new VirtioNetHeader(
            VirtioNetHeader.NeedsChecksum, gsoType, (ushort)item.HeadersLength, (ushort)item.SegmentSize, (ushort)item.IPHeaderLength, (ushort)checksumOffset);
        Coalesced++;
        writer.Write(header, packet);
    }

    private int FindFlow(in InnerPacket packet)
    {
        for (var slot = 0; slot < _items.Length; slot++)
        {
            if (_items[slot].InUse && packet.IsSameFlow(Buffer(slot)[.._items[slot].Length]))
            {
                return slot;
            }
        }

        return -1;
    }

    private int FreeSlot()
    {
        for (var slot = 0; slot < _items.Length; slot++)
        {
            if (!_items[slot].InUse)
            {
                return slot;
            }
        }

        return -1;
    }

    private Span<byte> Buffer(int slot) => _storage.AsSpan(slot * MaxPacket, MaxPacket);

    private struct Item
    {
        public bool InUse;
        public bool IsClosed;
        public int Length;
        public int IPHeaderLength;
        public int HeadersLength;
        public int SegmentSize;
        public int Segments;
        public uint NextSequence;
    }
}
