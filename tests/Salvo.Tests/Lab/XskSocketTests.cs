using System.Buffers.Binary;
using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Lab;

/// <summary>The AF_XDP socket layer alone (no XDP program, no backend): a frame written into the UMEM and produced on the TX ring leaves the veth.</summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class XskSocketTests
{
    [LabFact]
    public void FrameOnTheTxRing_ReachesTheKernelSocketOfThePeer_AndItsFrameComesBackOnTheCompletionRing()
    {
        using var lab = new NetworkLab();
        var interfaceIndex = uint.Parse(NetworkLab.Exec(lab.HostA, "cat", $"/sys/class/net/{lab.LinkA}/ifindex").Trim(), System.Globalization.CultureInfo.InvariantCulture);
        var macA = Mac(NetworkLab.Exec(lab.HostA, "cat", $"/sys/class/net/{lab.LinkA}/address"));
        var macB = Mac(NetworkLab.Exec(lab.HostB, "cat", $"/sys/class/net/{lab.LinkB}/address"));
        using var receiver = NetworkLab.InHost(lab.HostB, () => DatagramSocket.Bind(new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 0)));
        using var umem = XdpUmem.TryCreate(XdpUmem.DefaultFrameSize, XdpUmem.DefaultFrameCount, out var errno) ?? throw new InvalidOperationException($"UMEM: {errno}");
        string? failure = null;
        using var xsk = NetworkLab.InHost(lab.HostA, () => XskSocket.TryOpen(umem, interfaceIndex, 0, out failure, out _)) ?? throw new InvalidOperationException(failure);

        // veth has no zero-copy support (no ndo_xsk_wakeup in drivers/net/veth.c), so the socket fell back to copy mode.
        Assert.False(xsk.ZeroCopy);
        Assert.True(umem.TryTakeSendFrame(out var frame));
        var payload = "over the TX ring"u8;
        var length = WriteUdpFrame(umem.Frame(frame, umem.FrameSize), macB, macA, NetworkLab.AddressA, NetworkLab.AddressB, 40_000, receiver.LocalEndPoint.Port, payload);
        Assert.Equal(1u, xsk.Tx.Free(1));
        xsk.Tx.DescriptorAt(xsk.Tx.ProducerIndex) = new() { Address = frame, Length = (uint)length };
        xsk.Tx.Submit(1);
        xsk.KickTransmit();

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 2048);
        Assert.Equal(1, receiver.Receive(batch, TimeSpan.FromSeconds(5)));
        Assert.Equal(payload.ToArray(), batch[0].Payload.ToArray());
        Assert.Equal(new IPEndPoint(IPAddress.Parse(NetworkLab.AddressA), 40_000), batch[0].Source.ToIPEndPoint());

        var completed = 0u;
        for (var i = 0; i < 500 && completed == 0; i++)
        {
            completed = xsk.Completion.Ready(1);
            Thread.Sleep(completed == 0 ? 10 : 0);
        }

        Assert.Equal(1u, completed);
        Assert.Equal(frame, xsk.Completion.AddressAt(xsk.Completion.ConsumerIndex));
        xsk.Completion.Release(1);
    }

    private static byte[] Mac(string text) => Convert.FromHexString(text.Trim().Replace(":", "", StringComparison.Ordinal));

    /// <summary>Ethernet, IPv4 (DF, TTL 64, header checksum) and UDP (no checksum, which IPv4 allows) around the payload.</summary>
    private static int WriteUdpFrame(Span<byte> frame, byte[] destinationMac, byte[] sourceMac, string source, string destination, int sourcePort, int destinationPort, ReadOnlySpan<byte> payload)
    {
        destinationMac.CopyTo(frame);
        sourceMac.CopyTo(frame[6..]);
        BinaryPrimitives.WriteUInt16BigEndian(frame[12..], 0x0800);
        var ip = frame.Slice(14, 20);
        ip.Clear();
        ip[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(ip[2..], (ushort)(20 + 8 + payload.Length));
        BinaryPrimitives.WriteUInt16BigEndian(ip[6..], 0x4000);
        ip[8] = 64;
        ip[9] = 17;
        IPAddress.Parse(source).TryWriteBytes(ip[12..], out _);
        IPAddress.Parse(destination).TryWriteBytes(ip[16..], out _);
        uint sum = 0;
        for (var i = 0; i < 20; i += 2)
        {
            sum += BinaryPrimitives.ReadUInt16BigEndian(ip[i..]);
        }

        sum = (sum & 0xFFFF) + (sum >> 16);
        sum += sum >> 16;
        BinaryPrimitives.WriteUInt16BigEndian(ip[10..], (ushort)~sum);
        var udp = frame.Slice(34, 8);
        BinaryPrimitives.WriteUInt16BigEndian(udp, (ushort)sourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(udp[2..], (ushort)destinationPort);
        BinaryPrimitives.WriteUInt16BigEndian(udp[4..], (ushort)(8 + payload.Length));
        BinaryPrimitives.WriteUInt16BigEndian(udp[6..], 0);
        payload.CopyTo(frame[42..]);
        return 42 + payload.Length;
    }
}
