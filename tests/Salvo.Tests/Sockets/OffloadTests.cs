using System.Buffers.Binary;
using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Sockets;

/// <summary>UDP GSO on send and GRO on receive (Linux backend), their fallback, and per-datagram metadata.</summary>
[SupportedOSPlatform("linux")]
public sealed class OffloadTests
{
    private const int DatagramCount = 100_000;
    private const int PayloadLength = 1200;
    private const int Window = 2_048;

    private static DatagramSocket Open(bool gso = true, bool gro = true, IPAddress? address = null, bool packetInfo = false, bool ecn = false) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(address ?? IPAddress.Loopback, 0),
        Backend = DatagramBackend.LinuxBatched,
        ReceiveBufferSize = 4 << 20,
        Gso = gso,
        Gro = gro,
        ReceivePacketInformation = packetInfo,
        ReceiveEcn = ecn,
    });

    [RequiresFact(Requirement.Linux)]
    public void Probe_FindsGsoAndGroOnThisKernel()
    {
        using var socket = Open();
        Assert.True(socket.Capabilities.BatchedIo);
        Assert.True(socket.Capabilities.Gso, "this kernel (6.x) supports UDP_SEGMENT");
        Assert.True(socket.Capabilities.Gro, "this kernel (6.x) supports UDP_GRO");
        Assert.Equal(64, socket.Capabilities.MaxGsoSegments);
        using var off = Open(gso: false, gro: false);
        Assert.False(off.Capabilities.Gso);
        Assert.False(off.Capabilities.Gro);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(true, true)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(false, false)]
    public async Task HundredThousandDatagrams_ArriveIdenticalAndInOrder_WithOffloadsOnOrOff(bool gso, bool gro)
    {
        using var receiver = Open(gro: gro);
        using var sender = Open(gso: gso);
        long received = 0;
        long outOfOrder = 0;
        long damaged = 0;
        var receiving = Task.Run(async () =>
        {
            var batch = new ReceiveBatch();
            long expected = 0;
            while (Volatile.Read(ref received) < DatagramCount)
            {
                var count = await receiver.ReceiveAsync(batch);
                foreach (var datagram in batch)
                {
                    var sequence = Verify(datagram.Payload);
                    damaged += sequence < 0 ? 1 : 0;
                    outOfOrder += sequence != expected ? 1 : 0;
                    expected = sequence + 1;
                }

                Volatile.Write(ref received, Volatile.Read(ref received) + count);
            }
        });

        var sendBatch = new SendBatch(capacity: 64, maxDatagramSize: PayloadLength);
        long next = 0;
        while (next < DatagramCount)
        {
            if (next - Volatile.Read(ref received) > Window)
            {
                await Task.Yield();
                continue;
            }

            sendBatch.Clear();
            while (!sendBatch.IsFull && next < DatagramCount)
            {
                Assert.True(sendBatch.TryAdd(PayloadLength, receiver.LocalAddress, out var payload));
                Write(payload, next++);
            }

            Assert.Equal(sendBatch.Count, await sender.SendAsync(sendBatch));
        }

        Assert.Same(receiving, await Task.WhenAny(receiving, Task.Delay(TimeSpan.FromSeconds(30))));
        await receiving;
        Assert.Equal(0, damaged);
        Assert.Equal(0, outOfOrder);
        Assert.Equal(gso, sender.Capabilities.Gso);
        Assert.Equal(gro, receiver.Capabilities.Gro);
        var sent = sender.GetStatistics();
        if (gso)
        {
            // 64 equal datagrams to one place: one GSO message, one call per batch.
            Assert.Equal(DatagramCount / 64 + 1, sent.SendCalls);
        }
    }

    [RequiresFact(Requirement.Linux)]
    public async Task CoalescedBufferWithAShortTail_SplitsIntoTheOriginalDatagrams()
    {
        using var receiver = Open();
        using var sender = Open();
        var lengths = new[] { 1000, 1000, 1000, 1000, 1000, 300 };
        var batch = new SendBatch(capacity: 8, maxDatagramSize: 1000);
        for (var i = 0; i < lengths.Length; i++)
        {
            var payload = new byte[lengths[i]];
            payload.AsSpan().Fill((byte)(i + 1));
            batch.Add(payload, receiver.LocalAddress);
        }

        // The receiver must have GRO on before the datagrams arrive: it turns on at the first receive.
        var received = new ReceiveBatch();
        var pending = receiver.ReceiveAsync(received).AsTask();
        Assert.Equal(lengths.Length, await sender.SendAsync(batch));
        Assert.Equal(1, sender.GetStatistics().SendCalls);

        await pending.WaitAsync(TimeSpan.FromSeconds(5));
        var got = received.Cast().Select(d => d.Payload.ToArray()).ToList();
        while (got.Count < lengths.Length)
        {
            await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            got.AddRange(received.Cast().Select(d => d.Payload.ToArray()));
        }

        Assert.Equal(lengths, got.Select(g => g.Length));
        for (var i = 0; i < got.Count; i++)
        {
            Assert.All(got[i], b => Assert.Equal((byte)(i + 1), b));
        }
    }

    [RequiresFact(Requirement.Linux)]
    public async Task GroSplit_ExposesEverySegment_FromOneReceiveBuffer()
    {
        using var receiver = Open();
        using var sender = Open();
        var received = new ReceiveBatch(capacity: 1);
        // Turn GRO on with a first round trip.
        await sender.SendToAsync(new byte[] { 0 }, receiver.LocalAddress);
        await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5));

        var batch = new SendBatch(capacity: 10, maxDatagramSize: 500);
        for (var i = 0; i < 10; i++)
        {
            batch.Add(Enumerable.Repeat((byte)i, i == 9 ? 123 : 500).ToArray(), receiver.LocalAddress);
        }

        await sender.SendAsync(batch);
        // One buffer (capacity 1) holds all ten segments.
        Assert.Equal(10, await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Equal(Enumerable.Range(0, 10).Select(i => i == 9 ? 123 : 500), received.Cast().Select(d => d.Length));
        Assert.Equal(Enumerable.Range(0, 10).Select(i => (byte)i), received.Cast().Select(d => d.Payload[0]));
        Assert.All(received.Cast(), d => Assert.Equal(sender.LocalAddress, d.Source));
    }

    [RequiresFact(Requirement.Linux)]
    public void GroSocket_RefusesSmallBuffers_WithAClearError()
    {
        using var receiver = Open();
        using var sender = Open();
        Assert.Equal(0, receiver.Receive(new ReceiveBatch(capacity: 1), TimeSpan.FromMilliseconds(1)));
        var error = Assert.Throws<ArgumentException>(() => receiver.Receive(new ReceiveBatch(capacity: 1, bufferSize: 1500), TimeSpan.Zero));
        Assert.Equal("batch", error.ParamName);
        Assert.Contains("Gro = false", error.Message, StringComparison.Ordinal);
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData("EINVAL")]
    [InlineData("EIO")]
    public async Task ForcedGsoFailure_FallsBackWithoutLosingADatagram(string error)
    {
        using var receiver = Open(gro: false);
        using var sender = Open();
        var pal = (LinuxDatagramPal)sender.Pal;
        if (error == "EINVAL")
        {
            // A malformed UDP_SEGMENT control message: the kernel itself answers EINVAL.
            pal.CorruptNextGsoSendForTesting = true;
        }
        else
        {
            // EIO needs a device without checksum offload, which loopback is not: injected instead.
            pal.FailNextSendForTesting = Salvo.Interop.Linux.Errno.EIO;
        }

        var batch = new SendBatch(capacity: 64, maxDatagramSize: 100);
        for (var i = 0; i < 64; i++)
        {
            Assert.True(batch.TryAdd(100, receiver.LocalAddress, out var payload));
            Write(payload, i);
        }

        Assert.Equal(64, await sender.SendAsync(batch));
        Assert.Equal(0, batch.FailedCount);
        Assert.Equal(1, sender.GetStatistics().GsoFallbacks);
        Assert.False(sender.Capabilities.Gso);

        var seen = new List<long>();
        var received = new ReceiveBatch(capacity: 64, bufferSize: 2048);
        while (seen.Count < 64)
        {
            await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            seen.AddRange(received.Cast().Select(d => Verify(d.Payload)));
        }

        Assert.Equal(Enumerable.Range(0, 64).Select(i => (long)i), seen);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task WildcardSocket_ReportsEachDatagramsOwnDestination()
    {
        using var receiver = Open(address: IPAddress.Any, packetInfo: true);
        using var sender = Open();
        var port = receiver.LocalEndPoint.Port;
        var one = DatagramAddress.Create(IPAddress.Parse("127.0.0.1"), port);
        var two = DatagramAddress.Create(IPAddress.Parse("127.0.0.2"), port);
        await sender.SendToAsync(new byte[] { 1 }, one);
        await sender.SendToAsync(new byte[] { 2 }, two);

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 64);
        var destinations = new Dictionary<byte, DatagramAddress>();
        while (destinations.Count < 2)
        {
            await receiver.ReceiveAsync(batch).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            foreach (var datagram in batch)
            {
                destinations[datagram.Payload[0]] = datagram.Destination;
                Assert.NotEqual(0, datagram.InterfaceIndex);
            }
        }

        Assert.Equal(one, destinations[1]);
        Assert.Equal(two, destinations[2]);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task SendFromAChosenSourceAddress_AndEcnBits_ArriveAsSent()
    {
        using var receiver = Open(ecn: true);
        using var sender = Open(address: IPAddress.Any);
        await AssertSourceAndEcnArriveAsSent(sender, receiver);
    }

    /// <summary>Sends one datagram from 127.0.0.3 with ECT(0) and one with CE; both arrive so marked. Returns them.</summary>
    internal static async Task<List<ReceivedDatagram>> AssertSourceAndEcnArriveAsSent(DatagramSocket sender, DatagramSocket receiver)
    {
        var batch = new SendBatch(capacity: 2, maxDatagramSize: 16);
        var source = DatagramAddress.Create(IPAddress.Parse("127.0.0.3"), 0);
        Assert.True(batch.TryAdd(new byte[] { 7 }, receiver.LocalAddress, source, EcnCodepoint.Ect0));
        Assert.True(batch.TryAdd(new byte[] { 8 }, receiver.LocalAddress, default, EcnCodepoint.CongestionExperienced));
        Assert.Equal(2, await sender.SendAsync(batch));

        var got = new ReceiveBatch(capacity: 2, bufferSize: 64);
        var datagrams = new List<ReceivedDatagram>();
        while (datagrams.Count < 2)
        {
            await receiver.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            datagrams.AddRange(got.Cast());
        }

        Assert.Equal(IPAddress.Parse("127.0.0.3"), datagrams[0].Source.ToIPAddress());
        Assert.Equal(EcnCodepoint.Ect0, datagrams[0].Ecn);
        Assert.Equal(EcnCodepoint.CongestionExperienced, datagrams[1].Ecn);
        return datagrams;
    }

    [RequiresFact(Requirement.Linux)]
    public void MaxDatagramSize_OnLoopback_IsTheUdpLimit()
    {
        using var socket = Open();
        // Loopback's MTU is 65,536: the UDP limit (65,507) binds first.
        Assert.Equal(65_507, socket.GetMaxDatagramSize(socket.LocalAddress));
    }

    private static void Write(Span<byte> payload, long sequence)
    {
        BinaryPrimitives.WriteInt64LittleEndian(payload, sequence);
        for (var i = 8; i < payload.Length; i++)
        {
            payload[i] = (byte)(sequence ^ i);
        }
    }

    private static long Verify(ReadOnlySpan<byte> payload)
    {
        if (payload.Length < 8)
        {
            return -1;
        }

        var sequence = BinaryPrimitives.ReadInt64LittleEndian(payload);
        for (var i = 8; i < payload.Length; i++)
        {
            if (payload[i] != (byte)(sequence ^ i))
            {
                return -1;
            }
        }

        return sequence;
    }
}
