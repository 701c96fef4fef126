using System.Buffers.Binary;
using System.Net;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo.Tests.Xdp;

/// <summary>
/// The AF_XDP receive checks, one per row of the table in docs/design.md: each builds the raw frame the row is about and
/// asserts the verdict the kernel's UDP receive would reach (dropped by reason, or delivered with the same payload).
/// </summary>
public sealed class UdpReceiveCheckTests
{
    private const int LocalPort = 5000;
    private static readonly MacAddress s_hostMac = MacAddress.Parse("02:00:00:00:00:0a");
    private static readonly MacAddress s_peerMac = MacAddress.Parse("02:00:00:00:00:0b");
    private static readonly DatagramAddress s_local = Address("198.18.0.1", LocalPort);
    private static readonly DatagramAddress s_peer = Address("198.18.0.2", 40000);
    private static readonly DatagramAddress s_local6 = Address("2001:db8::1", LocalPort);
    private static readonly DatagramAddress s_peer6 = Address("2001:db8::2", 40000);
    private static readonly byte[] s_payload = "attacker's payload"u8.ToArray();

    [Theory]
    [InlineData("127.0.0.1")]
    [InlineData("127.255.0.9")]
    [InlineData("0.0.0.0")]
    public void IPv4MartianSource_IsDropped(string source)
    {
        Assert.Equal(UdpFrameStatus.MartianSource, Admit(Frame(Address(source, 40000), s_local)));
    }

    [Fact]
    public void RestOfTheZeroNetworkAsSource_IsDelivered()
    {
        // Linux 5.3 made 0.0.0.0/8 assignable: only 0.0.0.0 itself is martian now.
        AssertDelivered(Frame(Address("0.1.2.3", 40000), s_local), s_payload);
    }

    [Theory]
    [InlineData("198.18.0.1")]
    [InlineData("10.9.8.7")]
    public void SourceThatIsOneOfTheHostsOwnAddresses_IsDroppedAsMartian(string source)
    {
        // 198.18.0.1 is the socket's own address; 10.9.8.7 another interface's.
        Assert.Equal(UdpFrameStatus.MartianSource, Admit(Frame(Address(source, 40000), s_local)));
    }

    [Theory]
    [InlineData("224.0.0.5")]
    [InlineData("239.255.255.250")]
    [InlineData("255.255.255.255")]
    [InlineData("198.18.0.255")]
    public void MulticastOrBroadcastSource_IsDropped(string source)
    {
        Assert.Equal(UdpFrameStatus.MulticastSource, Admit(Frame(Address(source, 40000), s_local)));
    }

    [Theory]
    [InlineData("::1", nameof(UdpFrameStatus.MartianSource))]
    [InlineData("ff02::1", nameof(UdpFrameStatus.MulticastSource))]
    [InlineData("ff05::2", nameof(UdpFrameStatus.MulticastSource))]
    public void IPv6MartianOrMulticastSource_IsDropped(string source, string expected)
    {
        Assert.Equal(Enum.Parse<UdpFrameStatus>(expected), Admit(FromIPv6Source(source)));
    }

    [Theory]
    [InlineData("::")]
    [InlineData("::198.18.0.2")]
    [InlineData("::ffff:198.18.0.2")]
    [InlineData("fe80::2")]
    public void IPv6SourcesTheKernelPasses_AreDelivered(string source)
    {
        // ip6_rcv_core checks neither the unspecified, an IPv4-compatible nor an IPv4-mapped source; nor does UDP.
        AssertDelivered(FromIPv6Source(source), s_payload);
    }

    [Fact]
    public void OrdinaryPeer_IsDeliveredWithItsPayloadAndAddresses()
    {
        var policy = Policy();
        Assert.Equal(UdpFrameStatus.Ok, policy.Admit(Frame(s_peer, s_local), out var parsed));
        Assert.Equal(s_peer, parsed.Source);
        Assert.Equal(s_local, parsed.Destination);
    }

    [Fact]
    public void WrongUdpChecksum_IsDropped_OverBothFamilies()
    {
        var v4 = Frame(s_peer, s_local);
        v4[40] ^= 0x5A;
        var v6 = Frame(s_peer6, s_local6);
        v6[60] ^= 0x5A;

        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Admit(v4));
        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Admit(v6));
    }

    [Fact]
    public void CorruptPayloadUnderAGoodHeader_IsDropped()
    {
        var frame = Frame(s_peer, s_local);
        frame[^1] ^= 0x01;

        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Admit(frame));
    }

    [Fact]
    public void ZeroUdpChecksum_IsAllowedOverIPv4_AndRefusedOverIPv6()
    {
        var v4 = Frame(s_peer, s_local);
        v4[40] = v4[41] = 0;
        var v6 = Frame(s_peer6, s_local6);
        v6[60] = v6[61] = 0;

        AssertDelivered(v4, s_payload);
        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Admit(v6));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void PseudoHeaderOnlyChecksum_IsTakenOnlyWhereAPartialChecksumCanArrive(bool ipv6)
    {
        var frame = ipv6 ? Frame(s_peer6, s_local6) : Frame(s_peer, s_local);
        var udp = ipv6 ? 54 : 34;
        WritePseudoHeaderOnlyChecksum(frame, udp, ipv6);

        // Zero-copy (frames off the wire): wrong. Copy mode (perhaps a veth peer's CHECKSUM_PARTIAL skb): unverified, taken.
        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Admit(frame));
        Assert.Equal(UdpFrameStatus.Ok, Policy(acceptPseudoHeaderChecksum: true, ipv6: ipv6).Admit(frame, out var parsed));
        Assert.Equal(s_payload, parsed.Payload(frame).ToArray());
        // Any other wrong value is still refused in copy mode.
        frame[udp + 7] ^= 0x01;
        Assert.Equal(UdpFrameStatus.BadUdpChecksum, Policy(acceptPseudoHeaderChecksum: true, ipv6: ipv6).Admit(frame, out _));
    }

    [Fact]
    public void AnotherHostsDestinationMac_IsDropped()
    {
        var frame = Frame(s_peer, s_local, destinationMac: MacAddress.Parse("02:00:00:00:00:99"));

        Assert.Equal(UdpFrameStatus.OtherHost, Admit(frame));
    }

    [Theory]
    [InlineData("ff:ff:ff:ff:ff:ff")]
    [InlineData("01:00:5e:00:00:05")]
    public void GroupDestinationMac_IsDeliveredUnlessDropUnicastInL2MulticastIsSet(string mac)
    {
        var frame = Frame(s_peer, s_local, destinationMac: MacAddress.Parse(mac));

        AssertDelivered(frame, s_payload);
        Assert.Equal(UdpFrameStatus.OtherHost, Policy(dropUnicastInL2Multicast: true).Admit(frame, out _));
    }

    [Fact]
    public void VlanTaggedFrame_IsDropped_AndAPriorityTagIsNot()
    {
        Assert.Equal(UdpFrameStatus.VlanTagged, Admit(Tagged(Frame(s_peer, s_local), vlanId: 100)));
        Assert.Equal(UdpFrameStatus.VlanTagged, Admit(Tagged(Frame(s_peer, s_local), vlanId: 1)));
        AssertDelivered(Tagged(Frame(s_peer, s_local), vlanId: 0), s_payload);
    }

    [Fact]
    public void UdpLengthBeyondTheIPPayload_IsDropped()
    {
        var frame = Frame(s_peer, s_local);
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(38), (ushort)(8 + s_payload.Length + 1));

        Assert.Equal(UdpFrameStatus.MalformedUdp, Admit(frame));
    }

    [Theory]
    [InlineData(false, 1)]
    [InlineData(false, 30)]
    [InlineData(true, 1)]
    [InlineData(true, 30)]
    public void UdpLengthShorterThanTheIPPayload_IsTrimmedAndDelivered(bool ipv6, int trailing)
    {
        var frame = WithTrailingBytes(ipv6 ? Frame(s_peer6, s_local6) : Frame(s_peer, s_local), trailing, ipv6);

        AssertDelivered(frame, s_payload);
    }

    [Fact]
    public void IPv6ZeroUdpLength_MeansTheWholePayload()
    {
        var frame = Frame(s_peer6, s_local6);
        // The length field is in the checksum too: zeroing it takes its value out of the sum, so the checksum is fixed up.
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(58), 0);
        RewriteUdpChecksum(frame, 54, ipv6: true, pseudoLength: 8 + s_payload.Length);

        AssertDelivered(frame, s_payload);
    }

    [Fact]
    public void Fragment_IsDropped()
    {
        var frame = Frame(s_peer, s_local);
        frame[20] = 0x20; // more fragments
        RewriteIPv4HeaderChecksum(frame);

        Assert.Equal(UdpFrameStatus.Fragment, Admit(frame));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SourcePortZero_IsDropped(bool ipv6)
    {
        var frame = ipv6 ? Frame(s_peer6.WithPort(0), s_local6) : Frame(s_peer.WithPort(0), s_local);

        Assert.Equal(UdpFrameStatus.ZeroSourcePort, Admit(frame));
    }

    [Fact]
    public void AnotherPortOrAddress_IsDropped()
    {
        Assert.Equal(UdpFrameStatus.OtherDestination, Admit(Frame(s_peer, s_local.WithPort(LocalPort + 1))));
        Assert.Equal(UdpFrameStatus.OtherDestination, Admit(Frame(s_peer, Address("198.18.0.3", LocalPort))));
    }

    [Fact]
    public void EveryDropStatus_IsTheReasonOfTheSameNameAndValue()
    {
        var statuses = Enum.GetValues<UdpFrameStatus>().Where(s => s != UdpFrameStatus.Ok).ToArray();

        Assert.Equal(FrameDropCounts.Reasons.Count, statuses.Length);
        foreach (var status in statuses)
        {
            Assert.Equal(status.ToString(), ((FrameDropReason)status).ToString());
        }
    }

    [Fact]
    public void SocketCounters_CountEachDropByReason_AndKeepTheTotal()
    {
        var counters = new SocketCounters();
        Assert.Equal(default, counters.Snapshot().MalformedFramesByReason);

        counters.OnMalformedFrame(FrameDropReason.MartianSource);
        counters.OnMalformedFrame(FrameDropReason.MartianSource);
        counters.OnMalformedFrame(FrameDropReason.BadUdpChecksum);
        var statistics = counters.Snapshot();

        Assert.Equal(3, statistics.MalformedFrames);
        Assert.Equal(3, statistics.MalformedFramesByReason.Total);
        Assert.Equal(2, statistics.MalformedFramesByReason[FrameDropReason.MartianSource]);
        Assert.Equal(1, statistics.MalformedFramesByReason[FrameDropReason.BadUdpChecksum]);
        Assert.Equal(0, statistics.MalformedFramesByReason[FrameDropReason.VlanTagged]);
        Assert.Equal("BadUdpChecksum=1, MartianSource=2", statistics.MalformedFramesByReason.ToString());
        var doubled = statistics.MalformedFramesByReason + statistics.MalformedFramesByReason;
        Assert.Equal(4, doubled[FrameDropReason.MartianSource]);
        Assert.Equal(statistics.MalformedFramesByReason, doubled - statistics.MalformedFramesByReason);
    }

    [Fact]
    public void Admit_SteadyState_AllocatesNothing()
    {
        var policy = Policy();
        var good = Frame(s_peer, s_local);
        var martian = Frame(Address("198.18.0.1", 40000), s_local);
        var sum = 0;
        for (var i = 0; i < 100; i++)
        {
            sum += (int)policy.Admit(good, out var warm) + warm.PayloadLength + (int)policy.Admit(martian, out _);
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1000; i++)
        {
            sum += (int)policy.Admit(good, out var parsed) + parsed.PayloadLength + (int)policy.Admit(martian, out _);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(sum > 0);
    }

    internal static DatagramAddress Address(string address, int port) => DatagramAddress.Create(IPAddress.Parse(address), port);

    /// <summary>A frame from <paramref name="source"/> to <paramref name="destination"/> carrying the test payload, every checksum right.</summary>
    internal static byte[] Frame(DatagramAddress source, DatagramAddress destination, MacAddress? destinationMac = null, MacAddress? sourceMac = null, byte[]? payload = null)
    {
        payload ??= s_payload;
        var frame = new byte[UdpFrame.HeaderLength(source.Family) + payload.Length];
        payload.CopyTo(frame.AsSpan(UdpFrame.HeaderLength(source.Family)));
        UdpFrame.Write(frame, sourceMac ?? s_peerMac, destinationMac ?? s_hostMac, source, destination, payload.Length);
        return frame;
    }

    /// <summary>
    /// An IPv6 frame to the socket whose source is <paramref name="source"/>, written over a good frame's (an IPv4-mapped
    /// source would make the writer build IPv4) with the UDP checksum made right again.
    /// </summary>
    internal static byte[] FromIPv6Source(string source)
    {
        var frame = Frame(s_peer6, s_local6);
        IPAddress.Parse(source).GetAddressBytes().CopyTo(frame, 22);
        RewriteUdpChecksum(frame, 54, ipv6: true, pseudoLength: 8 + s_payload.Length);
        return frame;
    }

    /// <summary><paramref name="frame"/> with an 802.1Q tag carrying <paramref name="vlanId"/> after its MACs.</summary>
    internal static byte[] Tagged(byte[] frame, int vlanId)
    {
        var tagged = new byte[frame.Length + 4];
        frame.AsSpan(0, 12).CopyTo(tagged);
        BinaryPrimitives.WriteUInt16BigEndian(tagged.AsSpan(12), UdpFrame.EtherTypeVlan);
        BinaryPrimitives.WriteUInt16BigEndian(tagged.AsSpan(14), (ushort)vlanId);
        frame.AsSpan(12).CopyTo(tagged.AsSpan(16));
        return tagged;
    }

    /// <summary><paramref name="frame"/> with <paramref name="count"/> bytes after its UDP datagram, counted in the IP length (the UDP length unchanged).</summary>
    internal static byte[] WithTrailingBytes(byte[] frame, int count, bool ipv6)
    {
        var longer = new byte[frame.Length + count];
        frame.CopyTo(longer, 0);
        longer.AsSpan(frame.Length).Fill(0xEE);
        if (ipv6)
        {
            BinaryPrimitives.WriteUInt16BigEndian(longer.AsSpan(18), (ushort)(BinaryPrimitives.ReadUInt16BigEndian(longer.AsSpan(18)) + count));
        }
        else
        {
            BinaryPrimitives.WriteUInt16BigEndian(longer.AsSpan(16), (ushort)(BinaryPrimitives.ReadUInt16BigEndian(longer.AsSpan(16)) + count));
            RewriteIPv4HeaderChecksum(longer);
        }

        return longer;
    }

    /// <summary>Puts in the UDP checksum field what a CHECKSUM_PARTIAL skb carries: the folded pseudo-header sum, uncomplemented.</summary>
    internal static void WritePseudoHeaderOnlyChecksum(byte[] frame, int udp, bool ipv6)
    {
        var udpLength = BinaryPrimitives.ReadUInt16BigEndian(frame.AsSpan(udp + 4));
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(udp + 6), InternetChecksum.Fold(PseudoHeaderSum(frame, ipv6, udpLength)));
    }

    internal static void RewriteIPv4HeaderChecksum(byte[] frame)
    {
        frame[24] = frame[25] = 0;
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(24), InternetChecksum.Finish(InternetChecksum.Add(frame.AsSpan(14, 20))));
    }

    internal static void RewriteUdpChecksum(byte[] frame, int udp, bool ipv6, int pseudoLength)
    {
        frame[udp + 6] = frame[udp + 7] = 0;
        var sum = PseudoHeaderSum(frame, ipv6, pseudoLength);
        BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(udp + 6), InternetChecksum.Finish(InternetChecksum.Add(frame.AsSpan(udp, pseudoLength), sum)));
    }

    /// <summary>The UDP pseudo-header's sum of an Ethernet frame's IPv4 or IPv6 addresses and <paramref name="udpLength"/>.</summary>
    private static ulong PseudoHeaderSum(byte[] frame, bool ipv6, int udpLength) => ipv6
        ? InternetChecksum.AddPseudoHeader(frame.AsSpan(22, 16), frame.AsSpan(38, 16), 17, udpLength)
        : InternetChecksum.AddPseudoHeader(frame.AsSpan(26, 4), frame.AsSpan(30, 4), 17, udpLength);

    private static UdpReceivePolicy Policy(bool dropUnicastInL2Multicast = false, bool acceptPseudoHeaderChecksum = false, bool ipv6 = false) => new(
        s_hostMac,
        ipv6 ? s_local6 : s_local,
        [IPAddress.Parse("198.18.0.1"), IPAddress.Parse("10.9.8.7")],
        [IPAddress.Parse("198.18.0.255"), IPAddress.Parse("10.9.8.255")],
        dropUnicastInL2Multicast,
        acceptPseudoHeaderChecksum);

    private static UdpFrameStatus Admit(byte[] frame)
    {
        return Policy(ipv6: IsIPv6(frame)).Admit(frame, out _);
    }

    private static bool IsIPv6(byte[] frame) => BinaryPrimitives.ReadUInt16BigEndian(frame.AsSpan(12)) == UdpFrame.EtherTypeIPv6;

    private static void AssertDelivered(byte[] frame, byte[] payload)
    {
        Assert.Equal(UdpFrameStatus.Ok, Policy(ipv6: IsIPv6(frame)).Admit(frame, out var parsed));
        Assert.Equal(payload, parsed.Payload(frame).ToArray());
    }
}
