using System.Buffers.Binary;
using System.Net;
using Salvo.Tunnel.Offload;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// A TUN read: the first <see cref="VirtioNetHeader.Size"/> bytes are the virtio-net header, the rest the packet.
/// <see cref="TunSegmentation.TryPlan"/> checks the header against the packet (refusal: false) and every planned
/// segment is cut; the packet and the segments then go through <see cref="TunCoalescer"/>, the path decrypted
/// packets from peers take to the device. Whatever super-packet the coalescer writes must plan again.
/// </summary>
public sealed class TunOffloadTarget : IFuzzTarget
{
    /// <summary>The most segments cut per input: the kernel builds no GSO packet with more (UDP_MAX_SEGMENTS).</summary>
    private const int MaxSegments = 64;

    // Built once: its flows * 64 KiB of storage is reused, and every input ends with a flush.
    private static readonly TunCoalescer s_coalescer = new(flows: 4, tcp: true, udp: true);
    private static readonly CheckingWriter s_writer = new();
    private static readonly byte[] s_segment = new byte[65_535 + VirtioNetHeader.Size];

    public string Name => "tun-offload";

    public string Description => "virtio-net header, GSO segmentation (TunSegmentation) and coalescing (TunCoalescer)";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.Length < VirtioNetHeader.Size)
        {
            return;
        }

        var header = VirtioNetHeader.Read(input);
        var packet = input[VirtioNetHeader.Size..];
        if (TunSegmentation.TryPlan(header, packet, out var layout))
        {
            for (var i = 0; i < Math.Min(layout.Count, MaxSegments); i++)
            {
                var length = TunSegmentation.WriteSegment(layout, packet, i, s_segment);
                if (length != TunSegmentation.SegmentLength(layout, i))
                {
                    throw new InvalidOperationException($"Segment {i} wrote {length} bytes, planned {TunSegmentation.SegmentLength(layout, i)}.");
                }

                if (length > 0)
                {
                    s_coalescer.Add(s_segment.AsSpan(0, length), s_writer);
                }
            }
        }

        if (!packet.IsEmpty)
        {
            s_coalescer.Add(packet, s_writer);
        }

        s_coalescer.Flush(s_writer);
    }

    public IEnumerable<(string Name, byte[] Bytes)> Seeds()
    {
        var tcp = Packet(isIPv6: false, protocol: 6, payload: 3000);
        var udp6 = Packet(isIPv6: true, protocol: 17, payload: 2400);
        yield return ("none-ipv4-udp", [.. Header(VirtioNetHeader.None), .. Packet(isIPv6: false, protocol: 17, payload: 64)]);
        yield return ("needs-checksum", [.. Header(new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoNone, 0, 0, 20, 6)), .. Packet(false, 17, 32)]);
        yield return ("gso-tcpv4", [.. Header(new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoTcpV4, 40, 1000, 20, 16)), .. tcp]);
        yield return ("gso-udp-l4-v6", [.. Header(new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoUdpL4, 48, 1200, 40, 6)), .. udp6]);
        yield return ("gso-tcpv6-ecn", [.. Header(new VirtioNetHeader(VirtioNetHeader.NeedsChecksum, VirtioNetHeader.GsoTcpV6 | VirtioNetHeader.GsoEcn, 60, 500, 40, 16)), .. Packet(true, 6, 1500)]);
        yield return ("short", [.. Header(VirtioNetHeader.None), 0x45]);
    }

    private static byte[] Header(VirtioNetHeader header)
    {
        var bytes = new byte[VirtioNetHeader.Size];
        header.Write(bytes);
        return bytes;
    }

    /// <summary>An IPv4 or IPv6 packet with a TCP (20-byte) or UDP header and <paramref name="payload"/> bytes.</summary>
    private static byte[] Packet(bool isIPv6, byte protocol, int payload)
    {
        var ipLength = isIPv6 ? 40 : 20;
        var l4Length = protocol == 6 ? 20 : 8;
        var packet = new byte[ipLength + l4Length + payload];
        if (isIPv6)
        {
            packet[0] = 0x60;
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(4), (ushort)(l4Length + payload));
            packet[6] = protocol;
            packet[7] = 64;
            IPAddress.Parse("fd00::1").TryWriteBytes(packet.AsSpan(8), out _);
            IPAddress.Parse("fd00::2").TryWriteBytes(packet.AsSpan(24), out _);
        }
        else
        {
            packet[0] = 0x45;
            BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
            packet[8] = 64;
            packet[9] = protocol;
            IPAddress.Parse("198.19.0.1").TryWriteBytes(packet.AsSpan(12), out _);
            IPAddress.Parse("198.19.0.2").TryWriteBytes(packet.AsSpan(16), out _);
        }

        var l4 = packet.AsSpan(ipLength);
        BinaryPrimitives.WriteUInt16BigEndian(l4, 40000);
        BinaryPrimitives.WriteUInt16BigEndian(l4[2..], 5201);
        if (protocol == 6)
        {
            BinaryPrimitives.WriteUInt32BigEndian(l4[4..], 1000);
            l4[12] = 5 << 4;
            l4[13] = 0x10; // ACK
        }
        else
        {
            BinaryPrimitives.WriteUInt16BigEndian(l4[4..], (ushort)(l4Length + payload));
        }

        return packet;
    }

    /// <summary>Checks each super-packet the coalescer writes: the segmentation it asks of the kernel must plan.</summary>
    private sealed class CheckingWriter : ITunPacketWriter
    {
        public void Write(VirtioNetHeader header, ReadOnlySpan<byte> packet)
        {
            if (header.GsoType != VirtioNetHeader.GsoNone && !TunSegmentation.TryPlan(header, packet, out _))
            {
                throw new InvalidOperationException($"The coalescer wrote a super-packet that does not plan: {header}, {packet.Length} bytes.");
            }
        }
    }
}
