using System.Buffers.Binary;
using System.Net;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Salvo.Tests.Sockets;

/// <summary>
/// The batched backend's blocking receive: one request in flight, each end on its own thread, where every request
/// costs a wake-up. The receive waits inside recvmmsg (MSG_WAITFORONE, bounded by SO_RCVTIMEO), not in poll(2)
/// between two recvmmsg calls; shutdown(2) at dispose still ends that wait, and a descriptor the runtime has made
/// non-blocking falls back to poll(2).
/// </summary>
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class BlockingReceiveTests
{
    // Long enough in time for tiered compilation to finish before the window (about 0.6 s here): with 2,000 requests
    // (60 ms, less than the runtime's 100 ms delay before it starts counting calls) the tier-ups fell in the window,
    // and run alone the test saw 40 B allocated on the client's thread in every run (none with tiering off).
    private const int WarmUp = 20_000;
    private const int Measured = 20_000;

    // System call numbers, as /proc/PID/task/TID/syscall names them: arch/x86/entry/syscalls/syscall_64.tbl (poll
    // there is 7) and include/uapi/asm-generic/unistd.h for arm64 (where glibc's poll is ppoll, 73).
    private static int RecvMmsgNumber => SyscallNumber("recvmmsg", x64: 299, arm64: 243);

    private static int RecvMsgNumber => SyscallNumber("recvmsg", x64: 47, arm64: 212);

    [RequiresFact(Requirement.Linux)]
    public void OneRequestInFlight_EveryRequestIsAnsweredOnce_AndNeitherEndAllocates()
    {
        using var server = Open();
        using var client = Open();
        client.Connect(server.LocalAddress);

        // A wait that outlasts one SO_RCVTIMEO slice (250 ms: a loaded machine can hold either end that long) takes
        // code the warm-up's requests never reach, and its first run allocates (568 B in a probe of a 600 ms wait,
        // 0 B in the runs after it). Run it here, so the measured window sees only what each receive costs.
        Assert.Equal(0, server.Receive(new ReceiveBatch(capacity: 8, bufferSize: 2048), TimeSpan.FromMilliseconds(300)));
        Assert.Equal(0, client.Receive(new ReceiveBatch(capacity: 8, bufferSize: 2048), TimeSpan.FromMilliseconds(300)));
        Exception? failure = null;
        long serverBytes = -1;
        long clientBytes = -1;
        long answered = 0;

        var serverThread = new Thread(() => Guard(ref failure, () =>
        {
            long before = 0;
            EchoServing.Serve(server, WarmUp + Measured, mark: WarmUp, () => before = GC.GetAllocatedBytesForCurrentThread());
            serverBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        }));

        var clientThread = new Thread(() => Guard(ref failure, () =>
        {
            var responses = new ReceiveBatch(capacity: 64, bufferSize: 2048);
            var request = new SendBatch(capacity: 1, maxDatagramSize: 64);
            long before = 0;
            for (long sequence = 0; sequence < WarmUp + Measured; sequence++)
            {
                if (sequence == WarmUp)
                {
                    before = GC.GetAllocatedBytesForCurrentThread();
                }

                request.Clear();
                request.TryAdd(64, DatagramAddress.None, out var slot);
                BinaryPrimitives.WriteInt64LittleEndian(slot, sequence);
                client.Send(request);
                if (client.Receive(responses, TimeSpan.FromSeconds(10)) != 1)
                {
                    throw new InvalidOperationException($"request {sequence}: expected exactly one response, got {responses.Count}");
                }

                foreach (var response in responses)
                {
                    var echoed = BinaryPrimitives.ReadInt64LittleEndian(response.Payload);
                    if (echoed != sequence)
                    {
                        throw new InvalidOperationException($"request {sequence} was answered with {echoed}");
                    }

                    answered++;
                }
            }

            clientBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        }));

        serverThread.Start();
        clientThread.Start();
        Assert.True(clientThread.Join(TimeSpan.FromSeconds(120)), "the client did not finish");
        Assert.True(serverThread.Join(TimeSpan.FromSeconds(10)), "the server did not finish");
        Assert.Null(failure);
        Assert.Equal(WarmUp + Measured, answered);
        Assert.Equal(WarmUp + Measured, server.GetStatistics().DatagramsReceived);
        Assert.Equal(0, serverBytes);
        Assert.Equal(0, clientBytes);
    }

    [RequiresFact(Requirement.Linux)]
    public void BlockedReceive_SleepsInsideRecvmmsg_NotInPoll()
    {
        using var receiver = Open();
        using var sender = Open();
        var (thread, task) = StartBlockedReceive(receiver, TimeSpan.FromSeconds(10));

        // The thread is asleep once its state is S and its system call stays the same for a while.
        var call = WaitUntilAsleep(thread);
        SendOne(sender, receiver.LocalAddress);
        Assert.True(task.Wait(TimeSpan.FromSeconds(10)), "the receive did not return");
        Assert.Equal(1, task.Result);
        Assert.True(call == RecvMmsgNumber, $"the blocked receive slept in system call {call}, not recvmmsg ({RecvMmsgNumber})");
    }

    [RequiresFact(Requirement.Linux)]
    public void AWaitThatSleptForOneDatagram_TheNextSleepsInRecvmsg_AndAQueuedBurstStillComesInBatches()
    {
        using var receiver = Open();
        using var sender = Open();
        var pal = (Salvo.Pal.LinuxDatagramPal)receiver.Pal;

        var (first, firstTask) = StartBlockedReceive(receiver, TimeSpan.FromSeconds(10));
        Assert.Equal(RecvMmsgNumber, WaitUntilAsleep(first));
        SendOne(sender, receiver.LocalAddress);
        Assert.True(firstTask.Wait(TimeSpan.FromSeconds(10)), "the first receive did not return");
        Assert.Equal(1, firstTask.Result);
        Assert.True(pal.ExpectsOneMessage, "a wait that slept and woke to one datagram did not choose recvmsg for the next");

        var (second, secondTask) = StartBlockedReceive(receiver, TimeSpan.FromSeconds(10));
        var call = WaitUntilAsleep(second);
        SendOne(sender, receiver.LocalAddress);
        Assert.True(secondTask.Wait(TimeSpan.FromSeconds(10)), "the second receive did not return");
        Assert.Equal(1, secondTask.Result);
        Assert.True(call == RecvMsgNumber, $"the second wait slept in system call {call}, not recvmsg ({RecvMsgNumber})");

        // Ten datagrams queued while nobody waits (loopback delivers each before its send returns). The recvmsg wait
        // finds one without sleeping and the socket is back on recvmmsg, which takes the rest at once. A wait held
        // off the CPU inside recvmsg can look like one that slept: one more single receive is allowed for that.
        const int Burst = 10;
        for (var i = 0; i < Burst; i++)
        {
            SendOne(sender, receiver.LocalAddress);
        }

        var batch = new ReceiveBatch(capacity: 16, bufferSize: 2048);
        var received = 0;
        var calls = 0;
        while (received < Burst && calls < Burst)
        {
            received += receiver.Receive(batch, TimeSpan.FromSeconds(10));
            calls++;
        }

        Assert.Equal(Burst, received);
        Assert.True(calls <= 3, $"{calls} receives for a queued burst of {Burst}: they stayed one datagram each");
        Assert.Equal(Burst + 2, receiver.GetStatistics().DatagramsReceived);
    }

    [RequiresFact(Requirement.Linux)]
    public void DisposeDuringABlockedReceive_EndsIt_WithoutReportingADatagram()
    {
        var receiver = Open();
        var (thread, task) = StartBlockedReceive(receiver, Timeout.InfiniteTimeSpan);
        WaitUntilAsleep(thread);
        receiver.Dispose();
        var ended = Assert.Throws<AggregateException>(() => task.Wait(TimeSpan.FromSeconds(10)));
        Assert.IsType<ObjectDisposedException>(ended.InnerException);
        Assert.Equal(0, receiver.GetStatistics().DatagramsReceived);
    }

    [RequiresFact(Requirement.Linux)]
    public async Task AfterAnAsyncReceive_TheBlockingReceiveStillWaitsForItsDeadline_AndReceives()
    {
        // The runtime makes the descriptor non-blocking at its first asynchronous operation (the async receive's
        // readiness peek), where recvmmsg can no longer wait: the blocking receive must then wait in poll(2).
        using var receiver = Open();
        using var sender = Open();
        var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        var pending = receiver.ReceiveAsync(batch);
        Assert.False(pending.IsCompleted);
        SendOne(sender, receiver.LocalAddress);
        Assert.Equal(1, await pending);

        var clock = System.Diagnostics.Stopwatch.StartNew();
        Assert.Equal(0, receiver.Receive(batch, TimeSpan.FromMilliseconds(100)));
        Assert.True(clock.ElapsedMilliseconds >= 90, $"the receive returned after {clock.ElapsedMilliseconds} ms, before its deadline");

        var (_, task) = StartBlockedReceive(receiver, TimeSpan.FromSeconds(10));
        SendOne(sender, receiver.LocalAddress);
        Assert.True(task.Wait(TimeSpan.FromSeconds(10)), "the receive did not return");
        Assert.Equal(1, task.Result);
    }

    [RequiresFact(Requirement.Linux)]
    public void BlockingReceive_ThatTimesOut_ReturnsZero_AndTheNextOneStillReceives()
    {
        using var receiver = Open();
        using var sender = Open();
        var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        Assert.Equal(0, receiver.Receive(batch, TimeSpan.FromMilliseconds(20)));
        Assert.Equal(0, receiver.Receive(batch, TimeSpan.FromMilliseconds(1)));
        SendOne(sender, receiver.LocalAddress);
        SendOne(sender, receiver.LocalAddress);
        Thread.Sleep(20);
        Assert.Equal(2, receiver.Receive(batch, TimeSpan.FromSeconds(10)));
    }

    [RequiresFact(Requirement.Linux)]
    public void SharedSocket_TwoThreadsWithDifferentTimeouts_TheTimeoutItKeepsIsTheKernels()
    {
        // Two threads wait on one empty socket, one for 4 ms and one for 12 ms at a time (apart in the kernel's jiffies
        // at any HZ), each setting SO_RCVTIMEO when it differs from what the socket last set. Whenever both stop, the
        // value the socket keeps must be the one the kernel holds: where they differed, a lone caller later waited the
        // other's timeout on every receive.
        const int Rounds = 150;
        using var socket = Open();
        var pal = (Salvo.Pal.LinuxDatagramPal)socket.Pal;
        using var rounds = new Barrier(3);
        Exception? failure = null;
        int[] timeouts = [4, 12];
        var waiters = timeouts.Select(milliseconds => new Thread(() => Guard(ref failure, () =>
        {
            var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
            for (var round = 0; round < Rounds; round++)
            {
                rounds.SignalAndWait(TimeSpan.FromSeconds(10));
                for (var i = 0; i < 3; i++)
                {
                    socket.Receive(batch, TimeSpan.FromMilliseconds(milliseconds));
                }

                rounds.SignalAndWait(TimeSpan.FromSeconds(10));
            }
        }))).ToArray();
        foreach (var waiter in waiters)
        {
            waiter.Start();
        }

        var mismatches = 0;
        for (var round = 0; round < Rounds && failure is null; round++)
        {
            Assert.True(rounds.SignalAndWait(TimeSpan.FromSeconds(10)), "the waiters did not start their round");
            Assert.True(rounds.SignalAndWait(TimeSpan.FromSeconds(10)), "the waiters did not end their round");
            mismatches += KernelReceiveTimeoutMilliseconds(socket) == KernelRounded(pal.ReceiveTimeoutMilliseconds) ? 0 : 1;
        }

        foreach (var waiter in waiters)
        {
            Assert.True(waiter.Join(TimeSpan.FromSeconds(10)), "a waiter did not finish");
        }

        Assert.Null(failure);
        Assert.Equal(0, mismatches);
    }

    [RequiresFact(Requirement.Linux)]
    public void Receive_ZeroNegativeAndHugeTimeouts_ReturnAtOnceAreRefusedOrWaitInSlices()
    {
        using var receiver = Open();
        using var sender = Open();
        var batch = new ReceiveBatch(capacity: 8, bufferSize: 2048);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        Assert.Equal(0, receiver.Receive(batch, TimeSpan.Zero));
        Assert.True(clock.ElapsedMilliseconds < 1_000, $"a zero timeout waited {clock.ElapsedMilliseconds} ms");
        Assert.Throws<ArgumentOutOfRangeException>(() => receiver.Receive(batch, TimeSpan.FromMilliseconds(-2)));

        // Nearly 25 days (int.MaxValue ms): the kernel is given one 250 ms slice at a time, never the whole wait,
        // so a disposal is seen within a slice even where nothing wakes the thread.
        var (thread, task) = StartBlockedReceive(receiver, TimeSpan.MaxValue);
        WaitUntilAsleep(thread);
        Assert.Equal(KernelRounded(Salvo.Pal.PollDeadline.SliceMilliseconds), KernelReceiveTimeoutMilliseconds(receiver));
        SendOne(sender, receiver.LocalAddress);
        Assert.True(task.Wait(TimeSpan.FromSeconds(10)), "the receive did not return");
        Assert.Equal(1, task.Result);
    }

    /// <summary>The socket's SO_RCVTIMEO as the kernel holds it (a 64-bit timeval), in milliseconds.</summary>
    private static long KernelReceiveTimeoutMilliseconds(DatagramSocket socket) => ReceiveTimeoutOf(socket.Socket);

    /// <summary>What the kernel reads back for a timeout of <paramref name="milliseconds"/>: it keeps whole jiffies, so 250 ms reads 252 at HZ=250.</summary>
    private static long KernelRounded(int milliseconds)
    {
        using var scratch = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Dgram, System.Net.Sockets.ProtocolType.Udp);
        var timeval = new byte[16];
        BinaryPrimitives.WriteInt64LittleEndian(timeval, milliseconds / 1000);
        BinaryPrimitives.WriteInt64LittleEndian(timeval.AsSpan(8), milliseconds % 1000 * 1000L);
        scratch.SetRawSocketOption(Salvo.Interop.Linux.Constants.SOL_SOCKET, Salvo.Interop.Linux.Constants.SO_RCVTIMEO, timeval);
        return ReceiveTimeoutOf(scratch);
    }

    private static long ReceiveTimeoutOf(System.Net.Sockets.Socket socket)
    {
        var timeval = new byte[16];
        socket.GetRawSocketOption(Salvo.Interop.Linux.Constants.SOL_SOCKET, Salvo.Interop.Linux.Constants.SO_RCVTIMEO, timeval);
        return (BinaryPrimitives.ReadInt64LittleEndian(timeval) * 1000) + (BinaryPrimitives.ReadInt64LittleEndian(timeval.AsSpan(8)) / 1000);
    }

    private static DatagramSocket Open() => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Backend = DatagramBackend.LinuxBatched,
        ReceiveBufferSize = 1 << 20,
    });

    private static void SendOne(DatagramSocket sender, DatagramAddress to)
    {
        var batch = new SendBatch(capacity: 1, maxDatagramSize: 16);
        batch.Add(new byte[16], to);
        Assert.Equal(1, sender.Send(batch));
    }

    private static void Guard(ref Exception? failure, Action body)
    {
        try
        {
            body();
        }
        catch (Exception e)
        {
            failure = e;
        }
    }

    /// <summary>Starts a receive on a thread of its own; returns the thread's /proc path and the receive's count.</summary>
    private static (string Thread, Task<int> Receive) StartBlockedReceive(DatagramSocket socket, TimeSpan timeout)
    {
        var path = new TaskCompletionSource<string>();
        var receive = Task.Factory.StartNew(
            () =>
            {
                path.SetResult("/proc/" + new DirectoryInfo("/proc/thread-self").LinkTarget);
                return socket.Receive(new ReceiveBatch(capacity: 8, bufferSize: 2048), timeout);
            },
            TaskCreationOptions.LongRunning);
        return (path.Task.WaitAsync(TimeSpan.FromSeconds(10)).GetAwaiter().GetResult(), receive);
    }

    private static int SyscallNumber(string name, int x64, int arm64) => RuntimeInformation.ProcessArchitecture switch
    {
        System.Runtime.InteropServices.Architecture.X64 => x64,
        System.Runtime.InteropServices.Architecture.Arm64 => arm64,
        var other => throw new PlatformNotSupportedException($"no {name} number recorded for {other}"),
    };

    /// <summary>Waits (at most 10 s) until the thread sleeps in one system call; returns that call's number.</summary>
    private static int WaitUntilAsleep(string thread)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        var stable = 0;
        var last = -1;
        while (DateTime.UtcNow < deadline)
        {
            var state = File.ReadAllText(thread + "/stat").Split(')')[1].Trim()[0];
            var call = int.TryParse(File.ReadAllText(thread + "/syscall").Split(' ')[0], out var number) ? number : -1;
            stable = state == 'S' && call == last ? stable + 1 : 0;
            last = call;
            if (stable >= 5)
            {
                return call;
            }

            Thread.Sleep(10);
        }

        throw new TimeoutException($"{thread} never slept in one system call (last: {last})");
    }
}
