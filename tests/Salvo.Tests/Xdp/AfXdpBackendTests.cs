using System.Diagnostics;
using System.Runtime.Versioning;
using Salvo.Pal;
using Salvo.Tests.Lab;
using Salvo.Tests.Sockets;

namespace Salvo.Tests.Xdp;

/// <summary>
/// The AF_XDP backend over a veth pair: host A's socket on AF_XDP (copy mode: veth has no zero-copy), its peer in host B
/// a kernel socket or AF_XDP too. Sockets in one host cannot both be AF_XDP on its one veth queue.
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class AfXdpBackendTests
{
    [RequiresTheory(Requirement.AfXdpLab)]
    [InlineData(false)]
    [InlineData(true)]
    public void AfXdpSocket_ExchangesDatagramsWithAKernelSocketOfThePeer_ThroughItsProgram(bool busyPoll)
    {
        using var lab = new NetworkLab();
        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp, busyPoll);
        using var kernel = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);
        Assert.Equal(DatagramBackend.AfXdp, xdp.Backend);
        Assert.Equal(AfXdpMode.Copy, xdp.Capabilities.AfXdp);
        Assert.Equal(AfXdpMode.None, kernel.Capabilities.AfXdp);
        Assert.Contains("prog/xdp", NetworkLab.Exec(lab.HostA, "ip", $"-d link show {lab.InterfaceA}"), StringComparison.Ordinal);

        Exchange(kernel, xdp, 20);
        Exchange(xdp, kernel, 20);
        // Frames, not the UDP socket: what reached A went through the rings (the program's redirect), and the replies left
        // as frames once A's kernel knew B's Ethernet address from B's ARP request.
        var pal = (AfXdpDatagramPal)xdp.Pal;
        Assert.Equal(0, pal.MalformedFrames);
        Assert.Equal(0, pal.KernelSends);
        Assert.True(pal.Redirect.IfIndex > 0);

        xdp.Dispose();
        Assert.DoesNotContain("prog/xdp", NetworkLab.Exec(lab.HostA, "ip", $"-d link show {lab.InterfaceA}"), StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public async Task BothEndsOnAfXdp_TwentyThousandSequencedDatagrams_ArriveIntact_AsyncOnOneSideBlockingOnTheOther()
    {
        const int Total = 20_000;
        using var lab = new NetworkLab();
        using var a = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var b = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.AfXdp);
        var seen = new bool[Total];
        long received = 0;
        var damaged = 0;
        var receiving = Task.Run(async () =>
        {
            var batch = new ReceiveBatch(capacity: 48, bufferSize: 2048);
            var deadline = Stopwatch.StartNew();
            while (Volatile.Read(ref received) < Total && deadline.Elapsed < TimeSpan.FromSeconds(30))
            {
                using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
                var count = await b.ReceiveAsync(batch, timeout.Token);
                foreach (var datagram in batch)
                {
                    var sequence = SequencedPayload.Verify(datagram.Payload);
                    if (sequence < 0 || seen[sequence] || datagram.Source != a.LocalAddress)
                    {
                        damaged++;
                        continue;
                    }

                    seen[sequence] = true;
                }

                Volatile.Write(ref received, Volatile.Read(ref received) + count);
            }
        });

        var send = new SendBatch(capacity: 37, maxDatagramSize: 1472);
        long next = 0;
        var clock = Stopwatch.StartNew();
        while (next < Total && clock.Elapsed < TimeSpan.FromSeconds(30) && !receiving.IsCompleted)
        {
            if (next - Volatile.Read(ref received) > 1_024)
            {
                Thread.Yield();
                continue;
            }

            send.Clear();
            while (!send.IsFull && next < Total)
            {
                Assert.True(send.TryAdd(SequencedPayload.LengthFor(next), b.LocalAddress, out var payload));
                SequencedPayload.Write(payload, next++);
            }

            Assert.Equal(send.Count, a.Send(send));
        }

        await receiving.WaitAsync(TimeSpan.FromSeconds(40));
        Assert.Equal(0, damaged);
        Assert.Equal(Total, Volatile.Read(ref received));
        Assert.All(seen, Assert.True);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void DatagramLargerThanItsBuffer_IsReportedTruncated_AndTheNextArrivesWhole()
    {
        using var lab = new NetworkLab();
        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var kernel = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);
        var send = new SendBatch(capacity: 2, maxDatagramSize: 1000);
        send.Add(Enumerable.Repeat((byte)7, 1000).ToArray(), xdp.LocalAddress);
        send.Add(Enumerable.Repeat((byte)9, 100).ToArray(), xdp.LocalAddress);
        Assert.Equal(2, kernel.Send(send));

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 200);
        var got = new List<(int Length, bool Truncated, byte First)>();
        var clock = Stopwatch.StartNew();
        while (got.Count < 2 && clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            xdp.Receive(batch, TimeSpan.FromSeconds(1));
            foreach (var datagram in batch)
            {
                got.Add((datagram.Length, datagram.IsTruncated, datagram.Payload[0]));
            }
        }

        Assert.Equal([(200, true, (byte)7), (100, false, (byte)9)], got);
        Assert.Equal(1, xdp.GetStatistics().TruncatedDatagrams);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void BothEndsOnAfXdp_FromFreshNamespaces_TheFirstRequestIsAnsweredAtOnce()
    {
        // Neither kernel knows the other's Ethernet address yet: the request leaves through A's UDP socket (which makes
        // A's kernel resolve B), B's kernel learns A from that ARP request, and B's reply is framed from its table.
        using var lab = new NetworkLab();
        using var client = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var server = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.AfXdp);
        var batch = new ReceiveBatch(capacity: 4, bufferSize: 2048);
        var send = new SendBatch(capacity: 1, maxDatagramSize: 16);
        for (var round = 0; round < 3; round++)
        {
            send.Clear();
            send.Add([(byte)round], server.LocalAddress);
            Assert.Equal(1, client.Send(send));
            Assert.Equal(1, server.Receive(batch, TimeSpan.FromSeconds(2)));
            Assert.Equal(client.LocalAddress, batch[0].Source);
            send.Clear();
            send.Add([(byte)(round + 100)], batch[0].Source);
            Assert.Equal(1, server.Send(send));
            Assert.Equal(1, client.Receive(batch, TimeSpan.FromSeconds(2)));
            Assert.Equal((byte)(round + 100), batch[0].Payload[0]);
        }
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void FramesBeyondAFullRxRing_AreCountedAsKernelDrops()
    {
        using var lab = new NetworkLab();
        using var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var kernel = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);
        Assert.Equal(0, xdp.GetStatistics().KernelDrops);

        // Nobody receives: the RX ring (2,048 slots) fills, and what comes after is dropped by the kernel, not queued.
        var send = new SendBatch(capacity: 64, maxDatagramSize: 16);
        for (var i = 0; i < send.Capacity; i++)
        {
            send.Add(new byte[16], xdp.LocalAddress);
        }

        for (var i = 0; i < 64; i++)
        {
            Assert.Equal(send.Count, kernel.Send(send));
            // A pause per batch keeps the veth's own ring (256 frames, drivers/net/veth.c) from overflowing first.
            Thread.Sleep(1);
        }

        var clock = Stopwatch.StartNew();
        while (xdp.GetStatistics().KernelDrops == 0 && clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            Thread.Sleep(10);
        }

        Assert.InRange(xdp.GetStatistics().KernelDrops ?? 0, 1, (64 * 64) - 2_048);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public async Task Dispose_DuringPendingAsyncReceive_EndsItWithinOneSecond()
    {
        using var lab = new NetworkLab();
        var xdp = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        var pending = xdp.ReceiveAsync(new ReceiveBatch(capacity: 4, bufferSize: 2048)).AsTask();
        await Task.Delay(100);
        Assert.False(pending.IsCompleted);

        xdp.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => pending.WaitAsync(TimeSpan.FromSeconds(1)));
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void SecondAfXdpSocketOnTheSameInterface_IsRefusedNamingTheQueue()
    {
        using var lab = new NetworkLab();
        using var first = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);

        var error = Assert.Throws<InvalidOperationException>(() => AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp));

        var refusal = Assert.IsType<NotSupportedException>(error.InnerException);
        Assert.Contains("AfXdp", refusal.Message, StringComparison.Ordinal);
        Assert.Contains("queue 0", refusal.Message, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.AfXdpLab)]
    public void BothEndsOnAfXdp_SendAndReceive_AllocateNothingPerDatagram()
    {
        using var lab = new NetworkLab();
        using var receiver = AfXdpLab.Open(lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp);
        using var sender = AfXdpLab.Open(lab.HostB, NetworkLab.AddressB, DatagramBackend.AfXdp);

        // A veth with an XDP program queues frames for its peer in a ring of 256 (VETH_RING_SIZE, drivers/net/veth.c)
        // and drops past it; a window of 1,024 datagrams in flight lost frames there once under load, and the test
        // counts every datagram. 128 in flight (four send batches of 32) stays inside the ring.
        var (senderCapabilities, receiverCapabilities) = ZeroAllocationTests.AssertZeroAllocation(receiver, sender, payloadLength: 64, inFlight: 128);

        Assert.Equal(AfXdpMode.Copy, senderCapabilities.AfXdp);
        Assert.Equal(AfXdpMode.Copy, receiverCapabilities.AfXdp);
    }

    private static void Exchange(DatagramSocket from, DatagramSocket to, int count)
    {
        var send = new SendBatch(capacity: count, maxDatagramSize: 64);
        for (var i = 0; i < count; i++)
        {
            send.Add([(byte)i, 1, 2, 3], to.LocalAddress);
        }

        Assert.Equal(count, from.Send(send));
        var batch = new ReceiveBatch(capacity: 64, bufferSize: 2048);
        var seen = new List<byte>();
        var clock = Stopwatch.StartNew();
        while (seen.Count < count && clock.Elapsed < TimeSpan.FromSeconds(5))
        {
            to.Receive(batch, TimeSpan.FromSeconds(1));
            foreach (var datagram in batch)
            {
                Assert.Equal(from.LocalAddress, datagram.Source);
                Assert.Equal(4, datagram.Length);
                seen.Add(datagram.Payload[0]);
            }
        }

        Assert.Equal(Enumerable.Range(0, count).Select(i => (byte)i).Order(), seen.Order());
    }
}
