using System.Buffers.Binary;
using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Sockets;

/// <summary>What is particular to the io_uring backend: shared buffers running out, GSO through the ring, the ring per sending thread, release at dispose.</summary>
[SupportedOSPlatform("linux")]
public sealed class IoUringBackendTests
{
    private static DatagramSocket Open(bool gso = true, IPAddress? address = null, bool packetInfo = false, bool ecn = false, DatagramBackend backend = DatagramBackend.IoUring) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(address ?? IPAddress.Loopback, 0),
        Backend = backend,
        ReceiveBufferSize = 4 << 20,
        Gso = gso,
        ReceivePacketInformation = packetInfo,
        ReceiveEcn = ecn,
    });

    [RequiresFact(Requirement.IoUring)]
    public async Task MoreDatagramsThanProvidedBuffers_QueuedWhileNobodyReceives_AllArrive()
    {
        // 4,096 small buffers per ring: 6,000 datagrams queued at once run the group dry, which ends the multishot
        // receive with ENOBUFS; the ring's thread must arm it again as buffers come back, or the rest never arrive.
        // The socket buffer holds only what the provided buffers could not take (about 1,900 datagrams).
        const int Count = 6_000;
        using var receiver = Open();
        using var sender = Open(gso: false);
        var received = new ReceiveBatch(capacity: 64, bufferSize: 64);
        Assert.Equal(0, receiver.Receive(received, TimeSpan.Zero));

        var batch = new SendBatch(capacity: 50, maxDatagramSize: 8);
        for (var i = 0; i < Count; i += batch.Count)
        {
            batch.Clear();
            for (var j = i; j < i + 50; j++)
            {
                Assert.True(batch.TryAdd(8, receiver.LocalAddress, out var payload));
                BinaryPrimitives.WriteInt64LittleEndian(payload, j);
            }

            Assert.Equal(50, sender.Send(batch));
        }

        var seen = new bool[Count];
        var total = 0;
        while (total < Count)
        {
            var got = await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(10));
            foreach (var datagram in received)
            {
                seen[BinaryPrimitives.ReadInt64LittleEndian(datagram.Payload)] = true;
            }

            total += got;
        }

        Assert.All(seen, Assert.True);
        Assert.Equal(0, receiver.Receive(received, TimeSpan.FromMilliseconds(20)));
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task GsoRun_GoesThroughTheRingAsOneMessage_AndArrivesInOrder()
    {
        using var receiver = Open();
        using var sender = Open();
        Assert.True(sender.Capabilities.Gso);
        Assert.Equal(64, await sender.SendAsync(NumberedRun(receiver.LocalAddress, 1380)));
        Assert.Equal(1, sender.GetStatistics().SendCalls);
        Assert.Equal(Enumerable.Range(0, 64), await ReceiveNumbers(receiver, 64, length: 1380));
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task GsoMessageTheKernelRejects_ThroughTheRing_FallsBackWithoutLosingADatagram()
    {
        using var receiver = Open();
        using var sender = Open();
        // A malformed UDP_SEGMENT control message: the kernel answers EINVAL in the sendmsg entry's completion.
        ((IoUringDatagramPal)sender.Pal).Batched.CorruptNextGsoSendForTesting = true;
        Assert.Equal(64, await sender.SendAsync(NumberedRun(receiver.LocalAddress, 100)));
        Assert.Equal(1, sender.GetStatistics().GsoFallbacks);
        Assert.Equal(Enumerable.Range(0, 64), await ReceiveNumbers(receiver, 64, length: 100));
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task SourceAddressAndEcnBits_SentAndReceivedThroughTheRings_ArriveAsSent()
    {
        using var receiver = Open(ecn: true, packetInfo: true);
        using var sender = Open(address: IPAddress.Any);
        var datagrams = await OffloadTests.AssertSourceAndEcnArriveAsSent(sender, receiver);
        Assert.Equal(receiver.LocalAddress, datagrams[1].Destination);
    }

    [RequiresFact(Requirement.IoUring)]
    public void Sends_UseARingOfTheSendingThread_NotOnePerSocket()
    {
        using var receiver = Open();
        var found = new bool[2];
        var thread = new Thread(() =>
        {
            using var batched = Open(backend: DatagramBackend.LinuxBatched);
            using var uring = Open();
            var batch = new SendBatch(capacity: 1, maxDatagramSize: 8);
            batch.Add(new byte[8], receiver.LocalAddress);
            batched.Send(batch);
            found[0] = IoUringSendRing.ExistsOnThisThread;
            uring.Send(batch);
            found[1] = IoUringSendRing.ExistsOnThisThread;
        });
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)));
        Assert.Equal(new[] { false, true }, found);
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task Dispose_AfterReceiving_ReleasesTheDescriptor_SoThePortCanBeBoundAgain()
    {
        var socket = Open();
        var port = socket.LocalEndPoint.Port;
        using (var sender = Open())
        {
            await sender.SendToAsync(new byte[] { 1 }, socket.LocalAddress);
        }

        Assert.Equal(1, await socket.ReceiveAsync(new ReceiveBatch(capacity: 1, bufferSize: 16)).AsTask().WaitAsync(TimeSpan.FromSeconds(5)));

        // The ring's thread holds a reference on the descriptor while the multishot receive lives, and the runtime's
        // Socket.Dispose waits for the last reference: it returns only once the ring has let go.
        await Task.Run(socket.Dispose).WaitAsync(TimeSpan.FromSeconds(5));
        using var again = Rebind(port);
        Assert.Equal(port, again.LocalEndPoint.Port);
    }

    [RequiresFact(Requirement.IoUring)]
    public void SocketClaimedByAThread_IsReceivedThroughThatThreadsOwnRing_AndItsDisposeReleasesThePort()
    {
        var socket = Open();
        var port = socket.LocalEndPoint.Port;
        using var sender = Open(gso: false);
        int? owner = null;
        var threadId = 0;
        var received = 0;
        Exception? failure = null;
        using var ready = new ManualResetEventSlim();
        var thread = new Thread(() =>
        {
            threadId = Environment.CurrentManagedThreadId;
            socket.ReceiveOnThisThreadOnly();
            owner = ((IoUringDatagramPal)socket.Pal).Receiver?.Engine.OwnerThreadId;
            var batch = new ReceiveBatch(capacity: 64, bufferSize: 64);
            ready.Set();
            try
            {
                while (true)
                {
                    received += socket.Receive(batch, Timeout.InfiniteTimeSpan);
                }
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        ready.Wait();
        var batch = new SendBatch(capacity: 50, maxDatagramSize: 8);
        for (var i = 0; i < 50; i++)
        {
            batch.Add(new byte[8], socket.LocalAddress);
        }

        Assert.Equal(50, sender.Send(batch));
        for (var wait = 0; Volatile.Read(ref received) < 50 && wait < 500; wait++)
        {
            Thread.Sleep(10);
        }

        Assert.Equal(50, Volatile.Read(ref received));
        Assert.Equal(threadId, owner);

        // A dispose from another thread wakes the owner, which cancels its receive before it leaves: the port is free.
        socket.Dispose();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the owner thread did not wake at dispose");
        Assert.IsType<ObjectDisposedException>(failure);
        using var again = Rebind(port);
        Assert.Equal(port, again.LocalEndPoint.Port);
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task SocketArmedForSmallBuffers_AskedForFullSizeOnes_MovesToTheLargeGroup_AndTakesALargeDatagramWhole()
    {
        using var receiver = Open();
        using var sender = Open(gso: false);
        await sender.SendToAsync(new byte[] { 1 }, receiver.LocalAddress);
        Assert.Equal(1, await receiver.ReceiveAsync(new ReceiveBatch(capacity: 4, bufferSize: 64)).AsTask().WaitAsync(TimeSpan.FromSeconds(5)));

        // A full-size batch asks for the large group: the small receive is cancelled and armed again there.
        var large = new ReceiveBatch(capacity: 2);
        var pending = receiver.ReceiveAsync(large).AsTask();
        var pal = (IoUringDatagramPal)receiver.Pal;
        for (var wait = 0; pal.Receiver!.ArmedBuffers?.GroupId != 1 && wait < 500; wait++)
        {
            await Task.Delay(10);
        }

        Assert.Equal((ushort?)1, pal.Receiver!.ArmedBuffers?.GroupId);
        var payload = new byte[10_000];
        new Random(7).NextBytes(payload);
        await sender.SendToAsync(payload, receiver.LocalAddress);
        Assert.Equal(1, await pending.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.False(large[0].IsTruncated);
        Assert.Equal(payload, large[0].Payload.ToArray());
    }

    /// <summary>64 datagrams of <paramref name="length"/> bytes numbered 0 to 63: one GSO run.</summary>
    private static SendBatch NumberedRun(DatagramAddress destination, int length)
    {
        var batch = new SendBatch(capacity: 64, maxDatagramSize: length);
        for (var i = 0; i < 64; i++)
        {
            Assert.True(batch.TryAdd(length, destination, out var payload));
            BinaryPrimitives.WriteInt32LittleEndian(payload, i);
        }

        return batch;
    }

    /// <summary>The numbers of the next <paramref name="count"/> datagrams, each checked to be <paramref name="length"/> bytes.</summary>
    private static async Task<List<int>> ReceiveNumbers(DatagramSocket receiver, int count, int length)
    {
        var values = new List<int>();
        var received = new ReceiveBatch(capacity: 64, bufferSize: 2048);
        while (values.Count < count)
        {
            await receiver.ReceiveAsync(received).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
            Assert.All(received.Cast(), d => Assert.Equal(length, d.Payload.Length));
            values.AddRange(received.Cast().Select(d => BinaryPrimitives.ReadInt32LittleEndian(d.Payload)));
        }

        return values;
    }

    [RequiresFact(Requirement.IoUring)]
    public void ThreadThatEndsReceiving_ReleasesItsRing_AndTheSocketGoesOnReceivingOnASharedEngine()
    {
        using var socket = Open();
        using var sender = Open(gso: false);
        IoUringEngine? engine = null;
        var firstRound = 0;
        var thread = new Thread(() =>
        {
            socket.ReceiveOnThisThreadOnly();
            engine = ((IoUringDatagramPal)socket.Pal).Receiver?.Engine;
            var received = new ReceiveBatch(capacity: 64, bufferSize: 64);
            SendEight(sender, socket);
            for (var wait = 0; firstRound < 8 && wait < 100; wait++)
            {
                firstRound += socket.Receive(received, TimeSpan.FromMilliseconds(50));
            }

            socket.EndReceivingOnThisThread();
        });
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the receiving thread did not end");
        Assert.Equal(8, firstRound);
        Assert.NotNull(engine);
        Assert.True(engine.IsReleased, "the thread's ring was kept after it ended receiving");

        // The socket is still open: its next receive, on another thread, goes through a shared engine.
        SendEight(sender, socket);
        var batch = new ReceiveBatch(capacity: 64, bufferSize: 64);
        var secondRound = 0;
        for (var wait = 0; secondRound < 8 && wait < 100; wait++)
        {
            secondRound += socket.Receive(batch, TimeSpan.FromMilliseconds(50));
        }

        Assert.Equal(8, secondRound);
        Assert.Null(((IoUringDatagramPal)socket.Pal).Receiver!.Engine.OwnerThreadId);
    }

    [RequiresFact(Requirement.IoUring)]
    public void ThreadThatEndsReceiving_WithItsRingStarvedOfBuffers_ReleasesIt()
    {
        // A thread's ring has 2,048 small buffers: 3,000 datagrams queued and reaped without being taken run the group
        // dry, which ends the receive (ENOBUFS) and leaves the socket starved in its slot, as under load at a stop.
        using var socket = Open();
        using var sender = Open(gso: false);
        Exception? failure = null;
        var starved = false;
        IoUringEngine? engine = null;
        var thread = new Thread(() =>
        {
            try
            {
                socket.ReceiveOnThisThreadOnly();
                var pal = (IoUringDatagramPal)socket.Pal;
                engine = pal.Receiver!.Engine;
                Assert.Equal(0, socket.Receive(new ReceiveBatch(capacity: 1, bufferSize: 64), TimeSpan.Zero));
                for (var i = 0; i < 3_000 / 8; i++)
                {
                    SendEight(sender, socket);
                }

                for (var turn = 0; !pal.Receiver.Starved && turn < 200; turn++)
                {
                    engine.Drive(10);
                }

                starved = pal.Receiver.Starved;
                socket.EndReceivingOnThisThread();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the receiving thread did not end");
        Assert.Null(failure);
        Assert.True(starved, "the ring never ran out of buffers");
        Assert.True(engine!.IsReleased);
    }

    [RequiresFact(Requirement.IoUring)]
    public async Task DedicatedServerWorker_ReleasesItsThreadsRing_WhenTheServerStops()
    {
        // Without it a server stopped and started again kept a ring and 8.7 MiB of buffers per worker per start.
        var engines = new IoUringEngine?[2];
        var options = new Salvo.Server.DatagramServerOptions
        {
            EndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Workers = 2,
            Backend = DatagramBackend.IoUring,
            ReceiveThreadStarted = index => engines[index] = IoUringEngines.ForThisThread,
        };
        var server = new Salvo.Server.DatagramServer(options, new Salvo.Server.EchoHandler());
        await server.StartAsync();
        for (var wait = 0; (engines[0] is null || engines[1] is null) && wait < 500; wait++)
        {
            await Task.Delay(10);
        }

        Assert.All(engines, engine => Assert.False(engine!.IsReleased));
        await server.DisposeAsync();
        Assert.All(engines, engine => Assert.True(engine!.IsReleased, "a worker's ring was kept after the server stopped"));
    }

    private static void SendEight(DatagramSocket sender, DatagramSocket receiver)
    {
        var batch = new SendBatch(capacity: 8, maxDatagramSize: 8);
        for (var i = 0; i < 8; i++)
        {
            batch.Add(new byte[8], receiver.LocalAddress);
        }

        Assert.Equal(8, sender.Send(batch));
    }

    private static DatagramSocket Rebind(int port) => DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, port), DatagramBackend.LinuxBatched);
}
