using Salvo.Tunnel.Offload;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Offload;

/// <summary>
/// The data path with offloads allocates nothing per packet once warm: a 40-segment TCP super-packet is cut, sealed
/// into a send batch, opened on the other side and joined back into one super-packet, 1,000 times after a warm-up,
/// measured with this thread's allocation counter in ten slices, every slice exactly zero.
/// </summary>
public sealed class OffloadAllocationTests
{
    private const int WarmUp = 500;
    private const int Measured = 1_000;
    private const int Slices = 10;
    private const int SegmentSize = 1_368;
    private const int Segments = 40;

    [Fact]
    public void CutSealOpenJoin_SteadyState_AllocatesNothing()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var super = TestPackets.Tcp(false, TestPackets.Payload(Segments * SegmentSize), sequence: 1);
        var header = new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoTcpV4, 40, SegmentSize, 20, 16);
        Assert.True(TunSegmentation.TryPlan(header, super, out var layout));
        var packets = new PacketBatch(64, 1_500);
        var datagrams = new SendBatch(64, 1_500);
        var aliceOut = new BatchOutput(datagrams);
        var writer = new CountingWriter();
        var coalescer = new TunCoalescer(flows: 4, tcp: true, udp: false);
        var bobOut = new CoalescingOutput(coalescer, writer);
        var scratch = new byte[1_500];
        var aliceSource = pair.AliceSource;

        void RoundTrip()
        {
            packets.Clear();
            for (var i = 0; i < layout.Count; i++)
            {
                packets.Commit(TunSegmentation.WriteSegment(layout, super, i, packets.NextBuffer));
            }

            datagrams.Clear();
            pair.Alice.SendPackets(packets, aliceOut);
            for (var i = 0; i < datagrams.Count; i++)
            {
                var datagram = datagrams.GetPayload(i);
                datagram.CopyTo(scratch);
                pair.Bob.ReceiveDatagram(scratch.AsSpan(0, datagram.Length), aliceSource, bobOut);
            }

            coalescer.Flush(writer);
        }

        var slices = AllocationSlices.Measure(RoundTrip, WarmUp, Measured, Slices);

        Assert.True(slices.All(bytes => bytes == 0), $"bytes allocated per slice of {Measured / Slices} super-packets: {string.Join(", ", slices)}");
        const int roundTrips = WarmUp + Measured;
        Assert.Equal(roundTrips, writer.SuperPackets);
        Assert.Equal(super.Length, writer.LastLength);
        Assert.Equal((long)roundTrips * Segments, pair.Bob.Counters.PacketsReceived - 1);
        Assert.Equal(0, pair.Alice.Counters.TotalDropped + pair.Bob.Counters.TotalDropped);
    }

    private sealed class BatchOutput(SendBatch batch) : ITunnelOutput
    {
        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            return batch.TryAdd(length, destination, out var payload) ? payload : throw new InvalidOperationException("The send batch is full.");
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
        }
    }

    private sealed class CoalescingOutput(TunCoalescer coalescer, CountingWriter writer) : ITunnelOutput
    {
        public Span<byte> AddDatagram(int length, DatagramAddress destination) => throw new InvalidOperationException("Bob answers nothing in steady state.");

        public void WritePacket(ReadOnlySpan<byte> packet) => coalescer.Add(packet, writer);
    }

    private sealed class CountingWriter : ITunPacketWriter
    {
        public long SuperPackets { get; private set; }

        public int LastLength { get; private set; }

        public void Write(VirtioNetHeader header, ReadOnlySpan<byte> packet)
        {
            // A plain comparison: Assert.Equal builds a comparer each call, which would count as the path's allocation.
            if (header.GsoType == VirtioNetHeader.GsoTcpV4)
            {
                SuperPackets++;
            }

            LastLength = packet.Length;
        }
    }
}
