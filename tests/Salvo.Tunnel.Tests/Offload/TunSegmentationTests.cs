using Salvo.Tunnel.Offload;
using static Salvo.Tunnel.Tests.Offload.TestPackets;

namespace Salvo.Tunnel.Tests.Offload;

/// <summary>
/// Each super-packet is cut and compared byte for byte with the segments built independently (their own lengths,
/// IP ids, sequence numbers, flags and checksums); every checksum of every segment is verified on its own too.
/// </summary>
public sealed class TunSegmentationTests
{
    private const int SegmentSize = 1_400;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void TcpSuperPacket_CutsIntoSegments_EqualToPacketsBuiltAlone(bool ipv6)
    {
        var payload = Payload((2 * SegmentSize) + 200);
        var super = Tcp(ipv6, payload, sequence: 1_000, flags: Ack | Psh | Fin, ipId: 100);
        var header = GsoHeader(ipv6 ? VirtioNetHeader.GsoTcpV6 : VirtioNetHeader.GsoTcpV4, ipv6 ? 40 : 20, 16);

        var segments = Cut(header, super);

        Assert.Equal(3, segments.Count);
        for (var i = 0; i < 3; i++)
        {
            var chunk = payload.AsSpan(i * SegmentSize, Math.Min(SegmentSize, payload.Length - (i * SegmentSize)));
            var flags = i == 2 ? (byte)(Ack | Psh | Fin) : Ack;
            var expected = Tcp(ipv6, chunk, sequence: 1_000u + (uint)(i * SegmentSize), flags: flags, ipId: (ushort)(100 + i));
            Assert.Equal(expected, segments[i]);
            Assert.True(ChecksumsValid(segments[i]), $"segment {i} checksums");
        }

        Assert.Equal((ipv6 ? 40 : 20) + 20 + 200, segments[2].Length);
    }

    [Fact]
    public void TcpSuperPacket_KeepsCwrOnTheFirstSegmentOnly()
    {
        var payload = Payload(3 * SegmentSize);
        var super = Tcp(false, payload, sequence: 5, flags: Ack | Cwr);

        var segments = Cut(GsoHeader((byte)(VirtioNetHeader.GsoTcpV4 | VirtioNetHeader.GsoEcn), 20, 16), super);

        Assert.Equal([Ack | Cwr, Ack, Ack], segments.Select(s => (int)s[20 + 13]));
        Assert.All(segments, s => Assert.True(ChecksumsValid(s)));
    }

    [Fact]
    public void TcpSuperPacket_WithOptions_RepeatsTheOptionsInEverySegment()
    {
        byte[] timestamp = [1, 1, 8, 10, 0, 0, 0, 42, 0, 0, 0, 7];
        var payload = Payload(SegmentSize + 10);
        var super = Tcp(false, payload, sequence: 9, options: timestamp);

        var segments = Cut(GsoHeader(VirtioNetHeader.GsoTcpV4, 20, 16), super);

        Assert.Equal(Tcp(false, payload.AsSpan(0, SegmentSize), 9, options: timestamp), segments[0]);
        Assert.Equal(Tcp(false, payload.AsSpan(SegmentSize), 9 + SegmentSize, options: timestamp, ipId: 101), segments[1]);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void UdpSuperPacket_CutsIntoDatagrams_EqualToDatagramsBuiltAlone(bool ipv6)
    {
        var payload = Payload((2 * SegmentSize) + 33, seed: 2);
        var super = Udp(ipv6, payload, ipId: 7);

        var segments = Cut(GsoHeader(VirtioNetHeader.GsoUdpL4, ipv6 ? 40 : 20, 6), super);

        Assert.Equal(3, segments.Count);
        for (var i = 0; i < 3; i++)
        {
            var chunk = payload.AsSpan(i * SegmentSize, Math.Min(SegmentSize, payload.Length - (i * SegmentSize)));
            Assert.Equal(Udp(ipv6, chunk, ipId: (ushort)(7 + i)), segments[i]);
            Assert.True(ChecksumsValid(segments[i]), $"datagram {i} checksums");
        }
    }

    [Fact]
    public void SinglePacketWithPartialChecksum_IsCompleted()
    {
        var packet = Tcp(false, Payload(300), sequence: 1);
        var expected = packet.ToArray();
        System.Buffers.Binary.BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(20 + 16), PartialChecksum(packet));
        var header = new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoNone, 0, 0, 20, 16);

        var segments = Cut(header, packet);

        Assert.Equal(expected, Assert.Single(segments));
    }

    [Fact]
    public void SinglePacketWithoutFlags_PassesUnchanged()
    {
        var packet = Icmp(Payload(56));

        Assert.Equal(packet, Assert.Single(Cut(VirtioNetHeader.None, packet)));
    }

    [Theory]
    [InlineData(VirtioNetHeader.GsoTcpV6, 20)]
    [InlineData(VirtioNetHeader.GsoUdpL4, 20)]
    [InlineData(VirtioNetHeader.GsoTcpV4, 24)]
    [InlineData(99, 20)]
    public void HeaderThatDoesNotDescribeThePacket_IsRefused(byte gsoType, ushort checksumStart)
    {
        var super = Tcp(false, Payload(3_000), sequence: 1);

        Assert.False(TunSegmentation.TryPlan(GsoHeader(gsoType, checksumStart, 16), super, out _));
    }

    [Fact]
    public void ZeroSegmentSize_IsRefused()
    {
        var header = new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoTcpV4, 40, 0, 20, 16);

        Assert.False(TunSegmentation.TryPlan(header, Tcp(false, Payload(3_000), sequence: 1), out _));
    }

    private static VirtioNetHeader GsoHeader(byte gsoType, int checksumStart, int checksumOffset) =>
        new(VirtioNetHeader.NeedsChecksum, gsoType, (ushort)(checksumStart + 20), SegmentSize, (ushort)checksumStart, (ushort)checksumOffset);

    private static List<byte[]> Cut(VirtioNetHeader header, byte[] super)
    {
        Assert.True(TunSegmentation.TryPlan(header, super, out var layout));
        var segments = new List<byte[]>();
        var destination = new byte[2_000];
        for (var i = 0; i < layout.Count; i++)
        {
            var length = TunSegmentation.WriteSegment(layout, super, i, destination);
            Assert.NotEqual(0, length);
            segments.Add(destination.AsSpan(0, length).ToArray());
        }

        return segments;
    }
}
