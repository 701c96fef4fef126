using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo.Tests.Xdp;

/// <summary>Frames built and parsed in place: exact bytes, checksums against independent values, refusals by cause.</summary>
public sealed class UdpFrameTests
{
    private static readonly MacAddress s_macA = MacAddress.Parse("02:00:00:00:00:0a");
    private static readonly MacAddress s_macB = MacAddress.Parse("02:00:00:00:00:0b");
    private static readonly DatagramAddress s_v4A = DatagramAddress.Create(IPAddress.Parse("198.18.0.1"), 1234);
    private static readonly DatagramAddress s_v4B = DatagramAddress.Create(IPAddress.Parse("198.18.0.2"), 5678);
    private static readonly DatagramAddress s_v6A = DatagramAddress.Create(IPAddress.Parse("2001:db8::1"), 1234);
    private static readonly DatagramAddress s_v6B = DatagramAddress.Create(IPAddress.Parse("2001:db8::2"), 5678);

    [Fact]
    public void Write_IPv4_ProducesTheExpectedBytes()
    {
        var frame = new byte[64];
        "hello"u8.CopyTo(frame.AsSpan(UdpFrame.HeaderLength(AddressFamily.InterNetwork)));

        var length = UdpFrame.Write(frame, s_macA, s_macB, s_v4A, s_v4B, 5);

        // Checksums worked separately by a plain word-by-word RFC 1071 sum: IPv4 header aea4, UDP 14da.
        var expected = "02000000000b" + "02000000000a" + "0800"
            + "45000021" + "00004000" + "4011aea4" + "c6120001" + "c6120002"
            + "04d2162e000d14da" + "68656c6c6f";
        Assert.Equal(expected, Convert.ToHexString(frame, 0, length).ToLowerInvariant());
    }

    [Fact]
    public void Write_IPv6_CarriesTheUdpChecksumOverThePseudoHeader()
    {
        var frame = new byte[80];
        "hello"u8.CopyTo(frame.AsSpan(UdpFrame.HeaderLength(AddressFamily.InterNetworkV6)));

        var length = UdpFrame.Write(frame, s_macA, s_macB, s_v6A, s_v6B, 5);

        Assert.Equal(62 + 5, length);
        Assert.Equal("86dd", Convert.ToHexString(frame, 12, 2).ToLowerInvariant());
        Assert.Equal("60000000000d1140", Convert.ToHexString(frame, 14, 8).ToLowerInvariant());
        // Worked separately: 458d.
        Assert.Equal("04d2162e000d458d", Convert.ToHexString(frame, 54, 8).ToLowerInvariant());
    }

    [Theory]
    [InlineData(false, 0)]
    [InlineData(false, 1)]
    [InlineData(false, 1471)]
    [InlineData(true, 0)]
    [InlineData(true, 1451)]
    public void WriteThenParse_RoundTrips(bool ipv6, int payloadLength)
    {
        var (from, to) = ipv6 ? (s_v6A, s_v6B) : (s_v4A, s_v4B);
        var frame = new byte[2048];
        var offset = UdpFrame.HeaderLength(from.Family);
        Random.Shared.NextBytes(frame.AsSpan(offset, payloadLength));

        var length = UdpFrame.Write(frame, s_macA, s_macB, from, to, payloadLength, trafficClass: 0x01);
        var status = UdpFrameParser.TryParse(frame.AsSpan(0, length), out var parsed);

        Assert.Equal(UdpFrameStatus.Ok, status);
        Assert.Equal(from, parsed.Source);
        Assert.Equal(to, parsed.Destination);
        Assert.Equal(s_macA, parsed.SourceMac);
        Assert.Equal(s_macB, parsed.DestinationMac);
        Assert.Equal(offset, parsed.PayloadOffset);
        Assert.Equal(payloadLength, parsed.PayloadLength);
        Assert.Equal(0x01, parsed.TrafficClass);
    }

    [Fact]
    public void Parse_MinimumFrameWithEthernetPadding_TakesTheIPLength()
    {
        // A 60-byte minimum Ethernet frame carrying a 1-byte datagram: the 17 bytes after it are padding.
        var frame = new byte[60];
        var length = UdpFrame.Write(frame, s_macA, s_macB, s_v4A, s_v4B, 1);

        Assert.Equal(UdpFrameStatus.Ok, UdpFrameParser.TryParse(frame, out var parsed));
        Assert.Equal(43, length);
        Assert.Equal(1, parsed.PayloadLength);
    }

    [Fact]
    public void Parse_PriorityTaggedFrame_SkipsTheTag()
    {
        var plain = new byte[100];
        var length = UdpFrame.Write(plain, s_macA, s_macB, s_v4A, s_v4B, 10);
        var tagged = new byte[length + 4];
        plain.AsSpan(0, 12).CopyTo(tagged);
        // Priority 5, VLAN id 0: a priority tag, which the kernel takes as untagged.
        BinaryPrimitives.WriteUInt32BigEndian(tagged.AsSpan(12), 0x8100_A000);
        plain.AsSpan(12, length - 12).CopyTo(tagged.AsSpan(16));

        Assert.Equal(UdpFrameStatus.Ok, UdpFrameParser.TryParse(tagged, out var parsed));
        Assert.Equal(46, parsed.PayloadOffset);
        Assert.Equal(s_v4B, parsed.Destination);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Parse_EveryTruncation_IsReportedAsTruncated(bool ipv6)
    {
        var (from, to) = ipv6 ? (s_v6A, s_v6B) : (s_v4A, s_v4B);
        var frame = new byte[200];
        var length = UdpFrame.Write(frame, s_macA, s_macB, from, to, 20);

        for (var cut = 0; cut < length; cut++)
        {
            Assert.Equal(UdpFrameStatus.Truncated, UdpFrameParser.TryParse(frame.AsSpan(0, cut), out _));
        }
    }

    [Theory]
    [InlineData(false, 30, nameof(UdpFrameStatus.BadIPChecksum))]
    [InlineData(false, 44, nameof(UdpFrameStatus.BadUdpChecksum))]
    [InlineData(false, 50, nameof(UdpFrameStatus.BadUdpChecksum))]
    [InlineData(true, 70, nameof(UdpFrameStatus.BadUdpChecksum))]
    [InlineData(true, 30, nameof(UdpFrameStatus.BadUdpChecksum))]
    public void Parse_FlippedBit_FailsItsChecksum(bool ipv6, int offset, string expected)
    {
        var (from, to) = ipv6 ? (s_v6A, s_v6B) : (s_v4A, s_v4B);
        var frame = new byte[200];
        var length = UdpFrame.Write(frame, s_macA, s_macB, from, to, 20);
        frame[offset] ^= 0x10;

        Assert.Equal(Enum.Parse<UdpFrameStatus>(expected), UdpFrameParser.TryParse(frame.AsSpan(0, length), out _));
    }

    [Fact]
    public void Parse_ZeroUdpChecksum_IsAcceptedOverIPv4AndRefusedOverIPv6()
    {
        var v4 = new byte[100];
        var v4Length = UdpFrame.Write(v4, s_macA, s_macB, s_v4A, s_v4B, 8);
        v4[40] = v4[41] = 0;
        var v6 = new byte[100];
        var v6Length = UdpFrame.Write(v6, s_macA, s_macB, s_v6A, s_v6B, 8);
        v6[60] = v6[61] = 0;

        Assert.Equal(UdpFrameStatus.Ok, UdpFrameParser.TryParse(v4.AsSpan(0, v4Length), out _));
        Assert.Equal(UdpFrameStatus.BadUdpChecksum, UdpFrameParser.TryParse(v6.AsSpan(0, v6Length), out _));
    }

    [Fact]
    public void Parse_MalformedHeaders_AreNamedByCause()
    {
        Assert.Equal(UdpFrameStatus.NotIP, Parse(frame => BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(12), 0x0806)));
        Assert.Equal(UdpFrameStatus.MalformedIP, Parse(frame => frame[14] = 0x44));
        Assert.Equal(UdpFrameStatus.NotUdp, Parse(frame => Reheader(frame, 23, 6)));
        Assert.Equal(UdpFrameStatus.Fragment, Parse(frame => Reheader(frame, 20, 0x20)));
        Assert.Equal(UdpFrameStatus.MalformedUdp, Parse(frame => BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(38), 7)));
        Assert.Equal(UdpFrameStatus.MalformedUdp, Parse(frame => BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(38), 21)));

        static UdpFrameStatus Parse(Action<byte[]> damage)
        {
            var frame = new byte[100];
            var length = UdpFrame.Write(frame, s_macA, s_macB, s_v4A, s_v4B, 12);
            damage(frame);
            return UdpFrameParser.TryParse(frame.AsSpan(0, length), out _);
        }

        // Changes one IPv4 header byte and fixes the header checksum, so only the change is wrong.
        static void Reheader(byte[] frame, int offset, byte value)
        {
            frame[offset] = value;
            frame[24] = frame[25] = 0;
            BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(24), InternetChecksum.Finish(InternetChecksum.Add(frame.AsSpan(14, 20))));
        }
    }

    [Fact]
    public void Write_PayloadBeyondTheFrame_IsRefusedNamingTheSizes()
    {
        var error = Assert.Throws<ArgumentException>(() => UdpFrame.Write(new byte[100], s_macA, s_macB, s_v4A, s_v4B, 59));

        Assert.Contains("59-byte payload", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_MixedFamilies_AreRefused()
    {
        Assert.Throws<ArgumentException>(() => UdpFrame.Write(new byte[100], s_macA, s_macB, s_v4A, s_v6B, 1));
    }

    [Fact]
    public void WriteAndParse_SteadyState_AllocateNothing()
    {
        var frame = new byte[1514];
        var sum = 0;
        for (var i = 0; i < 100; i++)
        {
            sum += UdpFrame.Write(frame, s_macA, s_macB, s_v4A, s_v4B, 1000);
            UdpFrameParser.TryParse(frame.AsSpan(0, 1042), out var warm);
            sum += warm.PayloadLength;
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            sum += UdpFrame.Write(frame, s_macA, s_macB, s_v4A, s_v4B, 1000);
            UdpFrameParser.TryParse(frame.AsSpan(0, 1042), out var parsed);
            sum += parsed.PayloadLength + parsed.Source.Port;
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(sum > 0);
    }
}
