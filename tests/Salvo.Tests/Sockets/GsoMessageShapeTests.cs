using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;

namespace Salvo.Tests.Sockets;

/// <summary>How many datagrams fill one GSO message, and that a batch sized by it leaves as full messages.</summary>
[SupportedOSPlatform("linux")]
public sealed class GsoMessageShapeTests
{
    // SOL_UDP and UDP_GRO from include/uapi/linux/udp.h: the receiving plain socket asks for whole GSO runs.
    private const int SolUdp = 17;
    private const int UdpGro = 104;

    [Theory]
    [InlineData(1_380, 47)]
    [InlineData(1_200, 54)]
    [InlineData(64, 64)]
    [InlineData(1, 64)]
    [InlineData(32_000, 2)]
    [InlineData(40_000, 1)]
    [InlineData(65_507, 1)]
    public void SegmentsPerMessage_IsTheSegmentLimitOrWhatFitsIn65507Bytes(int size, int expected)
    {
        var capabilities = new DatagramCapabilities(BatchedIo: true, Gso: true, Gro: true, MaxGsoSegments: 64);

        Assert.Equal(expected, capabilities.GsoSegmentsPerMessage(size));
        Assert.True(expected * size <= DatagramCapabilities.MaxGsoMessageBytes || expected == 1);
    }

    [Fact]
    public void SegmentsPerMessage_WithoutGso_IsOne_AndASizeBelowOneIsRefused()
    {
        var off = new DatagramCapabilities(BatchedIo: true, Gso: false, Gro: false, MaxGsoSegments: 0);

        Assert.Equal(1, off.GsoSegmentsPerMessage(1_380));
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => off.GsoSegmentsPerMessage(0));
        Assert.Equal("datagramSize", error.ParamName);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task BatchOfWholeMessages_ArrivesAsFullGsoRuns()
    {
        using var receiver = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        receiver.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        receiver.SetRawSocketOption(SolUdp, UdpGro, BitConverter.GetBytes(1));
        using var sender = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Backend = DatagramBackend.LinuxBatched,
            Gso = true,
        });
        const int Size = 1_380;
        var perMessage = sender.Capabilities.GsoSegmentsPerMessage(Size);
        var batch = new SendBatch(2 * perMessage, Size);
        var destination = DatagramAddress.FromIPEndPoint((IPEndPoint)receiver.LocalEndPoint!);
        while (batch.TryAdd(Size, destination, out var payload))
        {
            payload.Fill(7);
        }

        Assert.Equal(2 * perMessage, sender.Send(batch));

        // On loopback a GSO message reaches a UDP_GRO socket as the one run it left as, so each receive
        // shows a message's size: two full ones, not one full and one short.
        var buffer = new byte[65_536];
        for (var message = 0; message < 2; message++)
        {
            var received = await receiver.ReceiveAsync(buffer).WaitAsync(TimeSpan.FromSeconds(5));
            Assert.Equal(perMessage * Size, received);
        }

        Assert.Equal(1, sender.GetStatistics().SendCalls);
    }
}
