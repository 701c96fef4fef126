using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using static Salvo.Tests.Sockets.SocketOptionReader;

namespace Salvo.Tests.Sockets;

/// <summary>The behaviour every backend must have, run once per backend by the subclasses below.</summary>
public abstract class DatagramSocketContractTests
{
    private const int DatagramCount = 100_000;

    // The most datagrams a sender may be ahead of its receiver: well under what a 4 MiB receive buffer
    // holds (~5,000 skbs of 768 bytes truesize), so "a modest rate" means no loss even on a busy machine.
    private const int Window = 1_024;

    protected abstract DatagramBackend Backend { get; }

    /// <summary>A socket of the backend under test; a backend that needs two hosts places each socket it opens in one of them.</summary>
    protected virtual DatagramSocket Open(IPAddress? address = null, int? receiveBuffer = 4 << 20) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(address ?? IPAddress.Loopback, 0),
        Backend = Backend,
        ReceiveBufferSize = receiveBuffer,
    });

    [NotOnAfXdp("It binds loopback and wildcard addresses; AF_XDP needs an interface's own address.")]
    [BackendTheory(NeedsLinux = true)]
    [InlineData("127.0.0.1")]
    [InlineData("::1")]
    [InlineData("::")]
    public void DontFragment_IsSetOnTheSocket_AsTheLinuxBackendSetsIt(string address)
    {
        var local = IPAddress.Parse(address);
        using var socket = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(local, 0),
            Backend = Backend,
            DontFragment = true,
        });

        // IP_PMTUDISC_PROBE = 3 (include/uapi/linux/in.h); without DontFragment the kernel's default is
        // IP_PMTUDISC_WANT = 1 (net.ipv4.ip_no_pmtu_disc = 0).
        const int probe = 3;
        if (local.AddressFamily == AddressFamily.InterNetwork || socket.Socket.DualMode)
        {
            Assert.Equal(probe, ReadInt(socket.Socket, 0, 10)); // IPPROTO_IP, IP_MTU_DISCOVER
        }

        if (local.AddressFamily == AddressFamily.InterNetworkV6)
        {
            Assert.Equal(probe, ReadInt(socket.Socket, 41, 23)); // IPPROTO_IPV6, IPV6_MTU_DISCOVER
            Assert.Equal(1, ReadInt(socket.Socket, 41, 62)); // IPV6_DONTFRAG (include/uapi/linux/in6.h)
        }

        using var plain = Open(local);
        Assert.NotEqual(probe, ReadInt(plain.Socket, local.AddressFamily == AddressFamily.InterNetwork ? 0 : 41, local.AddressFamily == AddressFamily.InterNetwork ? 10 : 23));
    }

    [BackendFact]
    public void Open_ReportsBackendAndBoundPort()
    {
        using var socket = Open();
        Assert.Equal(Backend, socket.Backend);
        Assert.NotEqual(0, socket.LocalEndPoint.Port);
        Assert.Equal(socket.LocalEndPoint.Port, socket.LocalAddress.Port);
        // Linux reports twice the requested size; any OS grants at least the default.
        Assert.True(socket.ReceiveBufferSize > 0);
    }

    [BackendFact]
    public async Task HundredThousandSequencedDatagrams_ArriveIntact_WhateverTheBatchBoundaries()
    {
        using var receiver = Open();
        using var sender = Open();
        var destination = receiver.LocalAddress;
        var seen = new bool[DatagramCount];
        long received = 0;
        long damaged = 0;

        var receiving = Task.Run(async () =>
        {
            var batch = new ReceiveBatch(capacity: 48, bufferSize: 2048);
            while (Volatile.Read(ref received) < DatagramCount)
            {
                var count = await receiver.ReceiveAsync(batch);
                foreach (var datagram in batch)
                {
                    var sequence = SequencedPayload.Verify(datagram.Payload);
                    if (sequence < 0 || seen[sequence] || datagram.Source != sender.LocalAddress)
                    {
                        damaged++;
                        continue;
                    }

                    seen[sequence] = true;
                }

                Volatile.Write(ref received, Volatile.Read(ref received) + count);
            }
        });

        var sendBatch = new SendBatch(capacity: 37, maxDatagramSize: 1500);
        long next = 0;
        var deadline = Stopwatch.StartNew();
        while (next < DatagramCount && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            if (next - Volatile.Read(ref received) > Window)
            {
                await Task.Yield();
                continue;
            }

            sendBatch.Clear();
            while (!sendBatch.IsFull && next < DatagramCount)
            {
                Assert.True(sendBatch.TryAdd(SequencedPayload.LengthFor(next), destination, out var payload));
                SequencedPayload.Write(payload, next++);
            }

            Assert.Equal(sendBatch.Count, await sender.SendAsync(sendBatch));
        }

        var finished = await Task.WhenAny(receiving, Task.Delay(TimeSpan.FromSeconds(30)));
        Assert.Same(receiving, finished);
        await receiving;
        Assert.Equal(0, damaged);
        Assert.All(seen, Assert.True);
        var stats = receiver.GetStatistics();
        Assert.Equal(DatagramCount, stats.DatagramsReceived);
        Assert.Equal(DatagramCount, sender.GetStatistics().DatagramsSent);
    }

    [BackendFact]
    public async Task DatagramLargerThanItsBuffer_IsReportedTruncated_AndTheNextArrivesWhole()
    {
        using var receiver = Open();
        using var sender = Open();
        var large = Enumerable.Range(0, 300).Select(i => (byte)i).ToArray();
        var small = new byte[] { 1, 2, 3 };
        await sender.SendToAsync(large, receiver.LocalAddress);
        await sender.SendToAsync(small, receiver.LocalAddress);

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 100);
        var got = new List<(byte[] Payload, bool Truncated)>();
        while (got.Count < 2)
        {
            await receiver.ReceiveAsync(batch).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            foreach (var datagram in batch)
            {
                got.Add((datagram.Payload.ToArray(), datagram.IsTruncated));
            }
        }

        Assert.True(got[0].Truncated);
        Assert.Equal(large.AsSpan(0, 100).ToArray(), got[0].Payload);
        Assert.False(got[1].Truncated);
        Assert.Equal(small, got[1].Payload);
        Assert.Equal(1, receiver.GetStatistics().TruncatedDatagrams);
    }

    [BackendFact]
    public async Task SingleDatagramReceive_IntoAShortBuffer_IsReportedTruncated()
    {
        using var receiver = Open();
        using var sender = Open();
        await sender.SendToAsync(new byte[64], receiver.LocalAddress);
        var result = await receiver.ReceiveFromAsync(new byte[10]).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        Assert.True(result.IsTruncated);
        Assert.Equal(10, result.Length);
        Assert.Equal(sender.LocalAddress, result.Source);
    }

    [NotOnAfXdp("A 65,507-byte datagram exceeds the veth's MTU; AF_XDP neither fragments nor segments.")]
    [BackendTheory]
    [InlineData(65_507)]
    [InlineData(0)]
    [InlineData(1)]
    public async Task LargestAndEmptyDatagrams_RoundTrip(int length)
    {
        using var receiver = Open();
        using var sender = Open();
        var payload = new byte[length];
        new Random(length).NextBytes(payload);
        var batch = new SendBatch(capacity: 2);
        batch.Add(payload, receiver.LocalAddress);
        Assert.Equal(1, await sender.SendAsync(batch));

        var receiveBatch = new ReceiveBatch(capacity: 2);
        Assert.Equal(1, await receiver.ReceiveAsync(receiveBatch).AsTask().WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.False(receiveBatch[0].IsTruncated);
        Assert.Equal(payload, receiveBatch[0].Payload.ToArray());
        Assert.Equal(sender.LocalAddress, receiveBatch[0].Source);
    }

    [NotOnAfXdp("It binds ::1; AF_XDP needs an interface's own address.")]
    [BackendFact]
    public async Task IPv6Loopback_RoundTripsWithTheSourceAddress()
    {
        using var receiver = Open(IPAddress.IPv6Loopback);
        using var sender = Open(IPAddress.IPv6Loopback);
        await sender.SendToAsync(new byte[] { 6, 6, 6 }, receiver.LocalAddress);
        var batch = new ReceiveBatch(capacity: 1, bufferSize: 16);
        await receiver.ReceiveAsync(batch).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(AddressFamily.InterNetworkV6, batch[0].Source.Family);
        Assert.Equal(sender.LocalAddress, batch[0].Source);
        Assert.Equal(new byte[] { 6, 6, 6 }, batch[0].Payload.ToArray());
    }

    [NotOnAfXdp("It binds ::; AF_XDP needs an interface's own address.")]
    [BackendFact]
    public async Task DualStackSocket_ReceivesIPv4_AndRepliesToIt()
    {
        using var dual = Open(IPAddress.IPv6Any);
        using var v4 = Open();
        var dualPort = dual.LocalEndPoint.Port;
        await v4.SendToAsync(new byte[] { 4 }, DatagramAddress.Create(IPAddress.Loopback, dualPort));

        var batch = new ReceiveBatch(capacity: 1, bufferSize: 16);
        await dual.ReceiveAsync(batch).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        var source = batch[0].Source;
        Assert.True(source.IsIPv4MappedToIPv6);
        Assert.Equal(v4.LocalAddress, source.Unmap());

        // Reply both to the mapped address as received and to the plain IPv4 form.
        var replies = new SendBatch(capacity: 2, maxDatagramSize: 16);
        replies.Add(new byte[] { 1 }, source);
        replies.Add(new byte[] { 2 }, source.Unmap());
        Assert.Equal(2, await dual.SendAsync(replies));
        var back = new ReceiveBatch(capacity: 2, bufferSize: 16);
        var got = 0;
        while (got < 2)
        {
            got += await v4.ReceiveAsync(back).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        }
    }

    [BackendFact]
    public async Task Dispose_DuringPendingAsyncReceive_EndsItWithinOneSecond()
    {
        var socket = Open();
        var pending = socket.ReceiveAsync(new ReceiveBatch(capacity: 2, bufferSize: 64)).AsTask();
        await Task.Delay(50);
        Assert.False(pending.IsCompleted);
        var clock = Stopwatch.StartNew();
        socket.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => pending.WaitAsync(TimeSpan.FromSeconds(1)));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(1), $"took {clock.Elapsed}");
    }

    [BackendFact]
    public async Task Dispose_DuringBlockingReceive_EndsItWithinOneSecond()
    {
        var socket = Open();
        using var started = new ManualResetEventSlim();
        var blocking = Task.Factory.StartNew(
            () =>
            {
                started.Set();
                return socket.Receive(new ReceiveBatch(capacity: 2, bufferSize: 64), Timeout.InfiniteTimeSpan);
            },
            TaskCreationOptions.LongRunning);
        started.Wait();
        await Task.Delay(50);
        var clock = Stopwatch.StartNew();
        socket.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => blocking.WaitAsync(TimeSpan.FromSeconds(1)));
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(1), $"took {clock.Elapsed}");
    }

    [BackendFact]
    public void BlockingReceive_ReturnsZeroOnTimeout()
    {
        using var socket = Open();
        Assert.Equal(0, socket.Receive(new ReceiveBatch(capacity: 1, bufferSize: 16), TimeSpan.FromMilliseconds(30)));
    }

    [BackendFact]
    public async Task OperationsAfterDispose_ThrowObjectDisposed()
    {
        var socket = Open();
        socket.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => socket.ReceiveAsync(new ReceiveBatch(1, 16)).AsTask());
        await Assert.ThrowsAsync<ObjectDisposedException>(() => socket.SendAsync(new SendBatch(1, 16)).AsTask());
        Assert.Throws<ObjectDisposedException>(() => socket.Receive(new ReceiveBatch(1, 16), TimeSpan.Zero));
    }

    [BackendFact]
    public async Task InvalidArguments_ThrowNamingTheParameter()
    {
        using var socket = Open();
        Assert.Equal("batch", (await Assert.ThrowsAsync<ArgumentNullException>(() => socket.ReceiveAsync(null!).AsTask())).ParamName);
        Assert.Equal("batch", (await Assert.ThrowsAsync<ArgumentNullException>(() => socket.SendAsync((SendBatch)null!).AsTask())).ParamName);
        Assert.Equal("timeout", Assert.Throws<ArgumentOutOfRangeException>(() => socket.Receive(new ReceiveBatch(1, 16), TimeSpan.FromSeconds(-2))).ParamName);
        Assert.Equal("destination", (await Assert.ThrowsAsync<ArgumentException>(() => socket.SendToAsync(new byte[1], DatagramAddress.None).AsTask())).ParamName);
        Assert.Equal("payload", (await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => socket.SendToAsync(new byte[70_000], socket.LocalAddress).AsTask())).ParamName);
        Assert.Equal("buffer", (await Assert.ThrowsAsync<ArgumentException>(() => socket.ReceiveFromAsync(Memory<byte>.Empty).AsTask())).ParamName);
        Assert.Equal("remote", Assert.Throws<ArgumentException>(() => socket.Connect(DatagramAddress.None)).ParamName);
    }

    [NotOnAfXdp("It reopens the peer on the test's thread, outside the lab's namespaces.")]
    [BackendFact]
    public async Task ConnectedSocketWhosePeerHasGone_CountsTheIcmpError_AndKeepsWorking()
    {
        var (client, peerEndPoint) = ConnectToAPeerThatHasGone();
        using var _ = client;

        var batch = new ReceiveBatch(capacity: 4, bufferSize: 64);
        var pending = client.ReceiveAsync(batch).AsTask();
        // Each send to the closed port draws an ICMP port-unreachable.
        var sends = new SendBatch(capacity: 1, maxDatagramSize: 16);
        sends.Add(new byte[] { 1 });
        for (var i = 0; i < 50 && client.GetStatistics().IcmpErrors == 0; i++)
        {
            await client.SendAsync(sends);
            await Task.Delay(10);
        }

        Assert.True(client.GetStatistics().IcmpErrors >= 1, "no ICMP error was counted");
        Assert.False(pending.IsCompleted, "the pending receive ended on an ICMP error");

        // The peer comes back on the same port: the same socket and the same pending receive still work.
        using var revived = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = peerEndPoint, Backend = Backend });
        await revived.SendToAsync(new byte[] { 42 }, client.LocalAddress);
        Assert.Equal(1, await pending.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Equal(new byte[] { 42 }, batch[0].Payload.ToArray());
        Assert.Equal(1, await client.SendAsync(sends));
    }

    [NotOnAfXdp("It reopens the peer on the test's thread, outside the lab's namespaces.")]
    [BackendFact]
    public async Task BlockingReceive_WithAnIcmpErrorPending_CountsIt_AndWaitsForData()
    {
        var (client, peerEndPoint) = ConnectToAPeerThatHasGone();
        using var _ = client;

        // One send draws one ICMP port-unreachable; only the blocking receive is there to report it.
        var sends = new SendBatch(capacity: 1, maxDatagramSize: 16);
        sends.Add(new byte[] { 1 });
        Assert.Equal(1, client.Send(sends));
        var batch = new ReceiveBatch(capacity: 4, bufferSize: 64);
        for (var i = 0; i < 20 && client.GetStatistics().IcmpErrors == 0; i++)
        {
            Assert.Equal(0, client.Receive(batch, TimeSpan.FromMilliseconds(50)));
        }

        Assert.Equal(1, client.GetStatistics().IcmpErrors);

        // The error is read once; the same blocking receive then gets the peer's datagram when it comes back.
        using var revived = new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = peerEndPoint, Backend = Backend });
        await revived.SendToAsync(new byte[] { 42 }, client.LocalAddress);
        Assert.Equal(1, client.Receive(batch, TimeSpan.FromSeconds(5)));
        Assert.Equal(new byte[] { 42 }, batch[0].Payload.ToArray());
        Assert.Equal(1, client.GetStatistics().IcmpErrors);
    }

    /// <summary>A socket connected to a port whose socket has just closed: sends to it draw ICMP port unreachable.</summary>
    private (DatagramSocket Client, IPEndPoint GonePeer) ConnectToAPeerThatHasGone()
    {
        var client = Open();
        using var peer = Open();
        client.Connect(peer.LocalAddress);
        return (client, peer.LocalEndPoint);
    }

    [NotOnAfXdp("It needs two receivers beside the sender, so two AF_XDP sockets on one interface.")]
    [BackendFact]
    public async Task SendBatch_ToMixedDestinations_ReachesEach()
    {
        using var sender = Open();
        using var a = Open();
        using var b = Open();
        var batch = new SendBatch(capacity: 4, maxDatagramSize: 16);
        batch.Add(new byte[] { 1 }, a.LocalAddress);
        batch.Add(new byte[] { 2 }, b.LocalAddress);
        batch.Add(new byte[] { 3 }, a.LocalAddress);
        Assert.Equal(3, await sender.SendAsync(batch));
        var got = new ReceiveBatch(capacity: 4, bufferSize: 16);
        var fromA = new List<byte>();
        while (fromA.Count < 2)
        {
            await a.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            fromA.AddRange(got.Cast().Select(d => d.Payload[0]));
        }

        Assert.Equal(new byte[] { 1, 3 }, fromA);
        await b.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(2, got[0].Payload[0]);
    }

    [BackendFact]
    public async Task FailedDatagramInABatch_IsCountedAndSkipped_TheRestStillGoOut()
    {
        using var sender = Open();
        using var receiver = Open();
        var batch = new SendBatch(capacity: 3, maxDatagramSize: 16);
        batch.Add(new byte[] { 1 }, receiver.LocalAddress);
        // An IPv4 socket cannot send to an IPv6 address: the kernel refuses this one datagram.
        batch.Add(new byte[] { 2 }, DatagramAddress.Create(IPAddress.IPv6Loopback, receiver.LocalEndPoint.Port));
        batch.Add(new byte[] { 3 }, receiver.LocalAddress);
        Assert.Equal(2, await sender.SendAsync(batch));
        Assert.Equal(1, batch.FailedCount);
        Assert.Equal(1, batch.FirstFailedIndex);
        Assert.NotEqual(SocketError.Success, batch.FirstError);
        Assert.Equal(1, sender.GetStatistics().SendErrors);

        var got = new ReceiveBatch(capacity: 4, bufferSize: 16);
        var values = new List<byte>();
        while (values.Count < 2)
        {
            await receiver.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            values.AddRange(got.Cast().Select(d => d.Payload[0]));
        }

        Assert.Equal(new byte[] { 1, 3 }, values);
    }
}

[SupportedOSPlatform("linux")]
public sealed class LinuxBatchedSocketTests : DatagramSocketContractTests
{
    protected override DatagramBackend Backend => DatagramBackend.LinuxBatched;

    [RequiresFact(Requirement.Linux)]
    public async Task ReceiveBatch_TakesManyDatagramsInOneCall()
    {
        using var receiver = Open();
        using var sender = Open();
        var batch = new SendBatch(capacity: 32, maxDatagramSize: 64);
        for (var i = 0; i < 32; i++)
        {
            batch.Add(new byte[] { (byte)i }, receiver.LocalAddress);
        }

        Assert.Equal(32, await sender.SendAsync(batch));
        Assert.Equal(1, sender.GetStatistics().SendCalls);
        var got = new ReceiveBatch(capacity: 64, bufferSize: 64);
        Assert.Equal(32, await receiver.ReceiveAsync(got));
        Assert.Equal(1, receiver.GetStatistics().ReceiveCalls);
        Assert.Equal(Enumerable.Range(0, 32).Select(i => (byte)i), got.Cast().Select(d => d.Payload[0]));
    }

    private DatagramSocket OpenLoopbackSenderWithoutGso() => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Backend = Backend,
        Gso = false,
    });

    /// <summary>Datagrams of one byte each, 0 to <paramref name="count"/> - 1, to <paramref name="receiver"/>.</summary>
    private static SendBatch OneByteDatagramsTo(DatagramSocket receiver, int count)
    {
        var batch = new SendBatch(capacity: count, maxDatagramSize: 64);
        for (var i = 0; i < count; i++)
        {
            batch.Add(new byte[] { (byte)i }, receiver.LocalAddress);
        }

        return batch;
    }

    [RequiresTheory(Requirement.Linux)]
    [InlineData(false)]
    [InlineData(true)]
    [SupportedOSPlatform("linux")]
    public async Task FullSendBuffer_BlockingSendWaitsAndResends_AsyncSendHandsTheMessageToTheRuntime_EachDatagramArrivesOnce(bool isAsync)
    {
        using var receiver = Open();
        using var sender = OpenLoopbackSenderWithoutGso();
        var batch = OneByteDatagramsTo(receiver, count: 32);

        ((Salvo.Pal.LinuxDatagramPal)sender.Pal).FailNextSendForTesting = Salvo.Interop.Linux.Errno.EAGAIN;
        Assert.Equal(32, isAsync ? await sender.SendAsync(batch) : sender.Send(batch));

        // Blocking: poll(2) for room, then the whole batch in one sendmmsg. Async: the runtime sends the first
        // message (one datagram, GSO off), then one sendmmsg takes the other 31.
        Assert.Equal(0, batch.FailedCount);
        Assert.Equal(isAsync ? 2 : 1, sender.GetStatistics().SendCalls);
        var values = new List<byte>();
        var got = new ReceiveBatch(capacity: 64, bufferSize: 64);
        while (values.Count < 32)
        {
            await receiver.ReceiveAsync(got).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            values.AddRange(got.Cast().Select(d => d.Payload[0]));
        }

        Assert.Equal(Enumerable.Range(0, 32).Select(i => (byte)i), values);
        Assert.Equal(0, receiver.Receive(got, TimeSpan.Zero));
    }

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public void FullSendBuffer_TrySend_DoesNotWait_TheMessageFailsWithWouldBlock_TheRestIsSent()
    {
        using var receiver = Open();
        using var sender = OpenLoopbackSenderWithoutGso();
        var batch = OneByteDatagramsTo(receiver, count: 32);

        ((Salvo.Pal.LinuxDatagramPal)sender.Pal).FailNextSendForTesting = Salvo.Interop.Linux.Errno.EAGAIN;

        Assert.Equal(31, sender.TrySend(batch));
        Assert.Equal(1, batch.FailedCount);
        Assert.Equal(SocketError.WouldBlock, batch.FirstError);
        Assert.Equal(1, sender.GetStatistics().SendErrors);
        Assert.InRange(sender.QueuedSendBytes, 0, sender.SendBufferSize);
    }
}

public sealed class PortableSocketTests : DatagramSocketContractTests
{
    protected override DatagramBackend Backend => DatagramBackend.Portable;

    // Both options exist only on Linux, where the batched backend reports them; this is the Portable backend there.
    [RequiresTheory(Requirement.Linux)]
    [InlineData(nameof(DatagramSocketOptions.ReceivePacketInformation))]
    [InlineData(nameof(DatagramSocketOptions.ReceiveEcn))]
    [SupportedOSPlatform("linux")]
    public void ReceiveMetadataOption_IsRefusedAtOpen_NamingIt(string option)
    {
        var options = new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Backend = Backend,
            ReceivePacketInformation = option == nameof(DatagramSocketOptions.ReceivePacketInformation),
            ReceiveEcn = option == nameof(DatagramSocketOptions.ReceiveEcn),
        };

        var error = Assert.Throws<NotSupportedException>(() => new DatagramSocket(options));
        Assert.StartsWith(option + ":", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Offloads_AskedFor_AreReportedOffInCapabilities()
    {
        using var socket = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Backend = Backend,
            Gso = true,
            Gro = true,
        });

        Assert.Equal(new DatagramCapabilities(BatchedIo: false, Gso: false, Gro: false, MaxGsoSegments: 0), socket.Capabilities);
    }
}

internal static class SocketOptionReader
{
    public static int ReadInt(Socket socket, int level, int name)
    {
        var value = new byte[4];
        Assert.Equal(4, socket.GetRawSocketOption(level, name, value));
        return BitConverter.ToInt32(value);
    }
}

internal static class ReceiveBatchTestExtensions
{
    public static List<ReceivedDatagram> Cast(this ReceiveBatch batch)
    {
        var list = new List<ReceivedDatagram>(batch.Count);
        foreach (var datagram in batch)
        {
            list.Add(datagram);
        }

        return list;
    }
}

[RequiresIoUring]
[SupportedOSPlatform("linux")]
public sealed class IoUringSocketTests : DatagramSocketContractTests
{
    protected override DatagramBackend Backend => DatagramBackend.IoUring;
}
