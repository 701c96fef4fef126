using System.Buffers.Binary;
using Salvo.Tunnel.Offload;
using static Salvo.Tunnel.Tests.Offload.TestPackets;

namespace Salvo.Tunnel.Tests.Offload;

/// <summary>
/// What joins and what must not: a super-packet written for in-sequence segments of one flow cuts back into exactly
/// the packets that went in; another flow, a gap, other flags, other options, other IP fields or a bad checksum each
/// keep packets apart.
/// </summary>
public sealed class TunCoalescerTests
{
    private const int SegmentSize = 1_400;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void InSequenceTcpSegments_AreOneSuperPacket_ThatCutsBackIntoThem(bool ipv6)
    {
        var packets = Enumerable.Range(0, 3).Select(i => Tcp(ipv6, Payload(SegmentSize, i), sequence: 1_000u + (uint)(i * SegmentSize), ipId: (ushort)(100 + i))).ToList();
        packets.Add(Tcp(ipv6, Payload(300, 9), sequence: 1_000u + (3 * SegmentSize), flags: Ack | Psh, ipId: 103));

        var written = Coalesce(tcp: true, udp: false, packets);

        var (header, super) = Assert.Single(written);
        Assert.Equal(ipv6 ? VirtioNetHeader.GsoTcpV6 : VirtioNetHeader.GsoTcpV4, header.GsoType);
        Assert.Equal(VirtioNetHeader.NeedsChecksum, header.Flags);
        Assert.Equal(SegmentSize, header.GsoSize);
        Assert.Equal((ipv6 ? 40 : 20) + 20, header.HeaderLength);
        Assert.Equal(ipv6 ? 40 : 20, header.ChecksumStart);
        Assert.Equal(16, header.ChecksumOffset);
        Assert.Equal(PartialChecksum(super), BinaryPrimitives.ReadUInt16BigEndian(super.AsSpan(header.ChecksumStart + 16)));
        Assert.Equal(packets, Cut(header, super));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void EqualUdpDatagrams_AreOneSuperPacket_ThatCutsBackIntoThem(bool ipv6)
    {
        var packets = Enumerable.Range(0, 4).Select(i => Udp(ipv6, Payload(1_300, i), ipId: (ushort)(50 + i))).ToList();
        packets.Add(Udp(ipv6, Payload(20, 7), ipId: 54));

        var written = Coalesce(tcp: false, udp: true, packets);

        var (header, super) = Assert.Single(written);
        Assert.Equal(VirtioNetHeader.GsoUdpL4, header.GsoType);
        Assert.Equal(1_300, header.GsoSize);
        Assert.Equal(6, header.ChecksumOffset);
        Assert.Equal(packets, Cut(header, super));
    }

    [Fact]
    public void OtherFlow_IsNotJoined_AndEachFlowKeepsItsOrder()
    {
        var a0 = Tcp(false, Payload(SegmentSize), 0);
        var b0 = Tcp(false, Payload(SegmentSize), 0, sourcePort: 40001);
        var a1 = Tcp(false, Payload(SegmentSize), SegmentSize, ipId: 101);

        var written = Coalesce(tcp: true, udp: false, [a0, b0, a1]);

        Assert.Equal(2, written.Count);
        Assert.Equal([a0, a1], Cut(written[0].Header, written[0].Packet));
        Assert.Equal(b0, written[1].Packet);
        Assert.Equal(VirtioNetHeader.None, written[1].Header);
    }

    [Fact]
    public void GapInSequence_StartsANewSuperPacket()
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var afterGap = Tcp(false, Payload(SegmentSize), 2 * SegmentSize, ipId: 101);

        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, afterGap]), first, afterGap);
    }

    [Theory]
    [InlineData(Ack | Fin)]
    [InlineData(Ack | Rst)]
    [InlineData(Syn | Ack)]
    [InlineData(Ack | Cwr)]
    [InlineData(Ack | 0x20)]
    public void SegmentWithOtherFlags_IsWrittenAlone_AfterWhatItsFlowHeld(byte flags)
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var second = Tcp(false, Payload(SegmentSize), SegmentSize, ipId: 101);
        var flagged = Tcp(false, Payload(SegmentSize), 2 * SegmentSize, flags: flags, ipId: 102);

        var written = Coalesce(tcp: true, udp: false, [first, second, flagged]);

        Assert.Equal(2, written.Count);
        Assert.Equal([first, second], Cut(written[0].Header, written[0].Packet));
        Assert.Equal(flagged, written[1].Packet);
    }

    [Fact]
    public void PushEndsTheSuperPacket()
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var pushed = Tcp(false, Payload(SegmentSize), SegmentSize, flags: Ack | Psh, ipId: 101);
        var next = Tcp(false, Payload(SegmentSize), 2 * SegmentSize, ipId: 102);

        var written = Coalesce(tcp: true, udp: false, [first, pushed, next]);

        Assert.Equal(2, written.Count);
        Assert.Equal([first, pushed], Cut(written[0].Header, written[0].Packet));
        Assert.Equal(next, written[1].Packet);
    }

    [Fact]
    public void ShortSegmentEndsTheSuperPacket_AndLongerOneIsNotJoined()
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var longer = Tcp(false, Payload(SegmentSize + 1), SegmentSize, ipId: 101);

        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, longer]), first, longer);
    }

    [Fact]
    public void DifferentOptions_AreNotJoined()
    {
        var first = Tcp(false, Payload(SegmentSize), 0, options: [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
        var second = Tcp(false, Payload(SegmentSize), SegmentSize, options: [1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 2], ipId: 101);

        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, second]), first, second);
    }

    [Fact]
    public void DifferentAcknowledgmentOrTtl_AreNotJoined()
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var otherAck = Tcp(false, Payload(SegmentSize), SegmentSize, acknowledgment: 1, ipId: 101);
        var otherTtl = Tcp(false, Payload(SegmentSize), SegmentSize, ttl: 9, ipId: 101);

        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, otherAck]), first, otherAck);
        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, otherTtl]), first, otherTtl);
    }

    [Fact]
    public void BadChecksum_IsNotJoined()
    {
        var first = Tcp(false, Payload(SegmentSize), 0);
        var corrupt = Tcp(false, Payload(SegmentSize), SegmentSize, ipId: 101);
        corrupt[^1] ^= 0xFF;

        AssertWrittenAlone(Coalesce(tcp: true, udp: false, [first, corrupt]), first, corrupt);
    }

    [Fact]
    public void ProtocolWithoutOffload_OrIcmp_IsWrittenAsIs()
    {
        var udp = Udp(false, Payload(1_300));
        var icmp = Icmp(Payload(56));

        var written = Coalesce(tcp: true, udp: false, [udp, udp, icmp]);

        Assert.Equal([udp, udp, icmp], written.Select(w => w.Packet));
        Assert.All(written, w => Assert.Equal(VirtioNetHeader.None, w.Header));
    }

    [Fact]
    public void MoreFlowsThanSlots_WritesWhatWasHeldFirst()
    {
        var packets = Enumerable.Range(0, 3).Select(i => Tcp(false, Payload(SegmentSize), 0, sourcePort: (ushort)(40000 + i))).ToList();
        var writer = new RecordingWriter();
        var coalescer = new TunCoalescer(flows: 2, tcp: true, udp: false);

        coalescer.Add(packets[0], writer);
        coalescer.Add(packets[1], writer);
        coalescer.Add(packets[2], writer);
        Assert.Equal(2, writer.Written.Count);
        coalescer.Flush(writer);

        Assert.Equal(packets, writer.Written.Select(w => w.Packet));
    }

    private static void AssertWrittenAlone(List<(VirtioNetHeader Header, byte[] Packet)> written, params byte[][] packets)
    {
        Assert.Equal(packets, written.Select(w => w.Packet));
        Assert.All(written, w => Assert.Equal(VirtioNetHeader.None, w.Header));
    }

    private static List<(VirtioNetHeader Header, byte[] Packet)> Coalesce(bool tcp, bool udp, IEnumerable<byte[]> packets)
    {
        var writer = new RecordingWriter();
        var coalescer = new TunCoalescer(flows: 4, tcp, udp);
        foreach (var packet in packets)
        {
            coalescer.Add(packet, writer);
        }

        coalescer.Flush(writer);
        return writer.Written;
    }

    private static List<byte[]> Cut(VirtioNetHeader header, byte[] super)
    {
        Assert.True(TunSegmentation.TryPlan(header, super, out var layout));
        var destination = new byte[2_000];
        return [.. Enumerable.Range(0, layout.Count).Select(i => destination.AsSpan(0, TunSegmentation.WriteSegment(layout, super, i, destination)).ToArray())];
    }

    private sealed class RecordingWriter : ITunPacketWriter
    {
        public List<(VirtioNetHeader Header, byte[] Packet)> Written { get; } = [];

        public void Write(VirtioNetHeader header, ReadOnlySpan<byte> packet) => Written.Add((header, packet.ToArray()));
    }
}
