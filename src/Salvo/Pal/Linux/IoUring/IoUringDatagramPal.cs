using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Linux io_uring: the socket's receive is one multishot recvmsg on a shared <see cref="IoUringEngine"/>, whose thread
/// posts each filled buffer to this socket's inbox; a receive copies what is queued into the batch and hands the buffers
/// back, and waits on the inbox when it is empty (awaited in the async model, a Monitor wait on a dedicated thread).
/// Sends are the batched backend's, turned into linked sendmsg entries on the sending thread's ring; socket options,
/// GSO and its fallbacks are the batched backend's too.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class IoUringDatagramPal : DatagramPal
{
    // Items taken from the inbox per pass: enough for a whole default batch, small enough for the stack.
    private const int TakeChunk = 64;

    private readonly LinuxDatagramPal _batched;
    private readonly int _localPort;
    private readonly bool _wantControl;
    private IoUringReceiver? _receiver;

    public IoUringDatagramPal(Socket socket, SocketCounters counters, DatagramSocketOptions options)
        : base(socket, counters, options)
    {
        _batched = new LinuxDatagramPal(socket, counters, options, sendsThroughRing: true);
        _localPort = ((System.Net.IPEndPoint)socket.LocalEndPoint!).Port;
        _wantControl = options.ReceivePacketInformation || options.ReceiveEcn;
    }

    /// <summary>The batched backend on the same socket, which sends (through the ring) and holds the options.</summary>
    internal LinuxDatagramPal Batched => _batched;

    /// <summary>The socket's receiver, once a receive or a claiming thread made it.</summary>
    internal IoUringReceiver? Receiver => Volatile.Read(ref _receiver);

    /// <summary>GRO is off: a coalesced buffer would need every provided buffer to hold 64 segments.</summary>
    public override DatagramCapabilities Capabilities => _batched.Capabilities with { Gro = false };

    public override DatagramBackend Backend => DatagramBackend.IoUring;

    /// <summary>A receive with a zero timeout does not wait: it looks at the inbox (a socket on its thread's own ring first reaps that ring, one io_uring_enter) and returns.</summary>
    public override bool CanSpinReceive => true;

    /// <summary>Dispose closes the inbox, which wakes every waiter.</summary>
    public override bool BlockingReceiveWakesOnClose => true;

    public override ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken)
    {
        var receiver = ReceiverFor();
        var count = TakeInto(receiver, batch);
        return count > 0 ? new(count) : ReceiveSlowAsync(receiver, batch, cancellationToken);
    }

    /// <summary>
    /// On the thread that claimed the socket (<see cref="ReceiveOnThisThreadOnly"/>), drives that thread's own engine: the
    /// kernel's receive work runs in this thread's io_uring_enter and nothing else is woken. Elsewhere, waits on the inbox.
    /// </summary>
    public override int Receive(ReceiveBatch batch, int timeoutMilliseconds)
    {
        var receiver = ReceiverFor();
        var engine = receiver.Engine.IsDrivenByCurrentThread ? receiver.Engine : null;
        var deadline = new PollDeadline(timeoutMilliseconds);
        while (true)
        {
            if (IsDisposed && engine is not null)
            {
                // Let the engine see the close and cancel the receive before this thread leaves it.
                engine.Drive(0);
                engine.Drive(0);
            }

            var count = TakeInto(receiver, batch);
            if (count > 0)
            {
                return count;
            }

            if (!deadline.TryNextSlice(out var slice))
            {
                // Out of time (or a zero timeout): one look at the ring without waiting.
                engine?.Drive(0);
                return TakeInto(receiver, batch);
            }

            if (engine is not null)
            {
                engine.Drive(slice);
            }
            else
            {
                receiver.Inbox.WaitBlocking(slice);
            }
        }
    }

    public override ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken) => _batched.SendAsync(batch, cancellationToken);

    public override int Send(SendBatch batch) => _batched.Send(batch);

    public override int TrySend(SendBatch batch) => _batched.TrySend(batch);

    public override int QueuedSendBytes => _batched.QueuedSendBytes;

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken)
    {
        var receiver = ReceiverFor();
        while (true)
        {
            if (TryTakeOne(receiver, buffer, out var result))
            {
                return result;
            }

            await receiver.Inbox.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    protected override void Close()
    {
        Volatile.Read(ref _receiver)?.Dispose();
        _batched.Dispose();
    }

    /// <summary>
    /// Ties the socket's receive to the calling thread's own engine, which this thread's blocking receives drive (no
    /// engine thread, no wake-up between threads). Only before the first receive; a thread the kernel refuses a ring
    /// keeps the shared engines.
    /// </summary>
    public override void ReceiveOnThisThreadOnly()
    {
        if (Volatile.Read(ref _receiver) is null && IoUringEngines.ForThisThread is { } engine)
        {
            _ = MakeReceiver(engine);
        }
    }

    /// <summary>Releases the calling thread's own engine: its sockets receive on a shared engine from their next receive.</summary>
    public override void EndReceivingOnThisThread() => IoUringEngines.ReleaseThisThread();

    public override bool IsReceivingOnThisThreadsRing => Receiver?.Engine is { IsDrivenByCurrentThread: true, IsReleased: false };

    /// <summary>
    /// The socket's receiver, made at the first receive on a shared engine unless a thread claimed it first; made again on
    /// a shared engine when the thread that claimed the socket released its engine.
    /// </summary>
    private IoUringReceiver ReceiverFor()
    {
        var receiver = Volatile.Read(ref _receiver);
        if (receiver is null)
        {
            return MakeReceiver(IoUringEngines.Next());
        }

        if (!receiver.Engine.IsReleased)
        {
            return receiver;
        }

        ThrowIfDisposed();
        var moved = new IoUringReceiver(IoUringEngines.Next(), Socket.SafeHandle, Counters, _wantControl);
        var current = Interlocked.CompareExchange(ref _receiver, moved, receiver);
        if (current != receiver)
        {
            return current!;
        }

        // Its receive was cancelled and its buffers went with the engine: nothing queued in it may be read.
        receiver.Dispose();
        if (IsDisposed)
        {
            moved.Dispose();
        }

        return moved;
    }

    private IoUringReceiver MakeReceiver(IoUringEngine engine)
    {
        ThrowIfDisposed();
        var made = new IoUringReceiver(engine, Socket.SafeHandle, Counters, _wantControl);
        var receiver = Interlocked.CompareExchange(ref _receiver, made, null) ?? made;
        if (IsDisposed)
        {
            // Closed while the receiver was being made: Close may not have seen it.
            receiver.Dispose();
        }

        return receiver;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReceiveSlowAsync(IoUringReceiver receiver, ReceiveBatch batch, CancellationToken cancellationToken)
    {
        while (true)
        {
            await receiver.Inbox.WaitAsync(cancellationToken).ConfigureAwait(false);
            var count = TakeInto(receiver, batch);
            if (count > 0)
            {
                return count;
            }
        }
    }

    /// <summary>Copies what the inbox holds (up to the batch's capacity) into the batch; 0 when nothing is queued.</summary>
    private int TakeInto(IoUringReceiver receiver, ReceiveBatch batch)
    {
        ThrowIfDisposed();
        receiver.EnsureArmed(batch.BufferSize);
        Span<InboxItem> items = stackalloc InboxItem[TakeChunk];
        var count = 0;
        long bytes = 0;
        var truncated = 0;
        var entries = batch.Entries;
        while (count < batch.Capacity)
        {
            var taken = receiver.Inbox.Take(items[..Math.Min(TakeChunk, batch.Capacity - count)], errorFirst: count == 0);
            if (taken == 0)
            {
                break;
            }

            try
            {
                for (var i = 0; i < taken; i++)
                {
                    ThrowIfError(items[i], count);
                    var offset = count * batch.SlotStride;
                    ref var entry = ref entries[count++];
                    entry = Parse(receiver, items[i], batch.Buffer.AsSpan(offset, batch.BufferSize));
                    entry.Offset = offset;
                    bytes += entry.Length;
                    truncated += entry.IsTruncated ? 1 : 0;
                }
            }
            finally
            {
                receiver.Engine.ReturnBuffers(items[..taken]);
            }
        }

        batch.SetCount(count);
        if (count > 0)
        {
            Counters.OnReceived(count, bytes, truncated);
        }

        return count;
    }

    private bool TryTakeOne(IoUringReceiver receiver, Memory<byte> buffer, out ReceiveResult result)
    {
        ThrowIfDisposed();
        receiver.EnsureArmed(buffer.Length);
        Span<InboxItem> item = stackalloc InboxItem[1];
        if (receiver.Inbox.Take(item, errorFirst: true) == 0)
        {
            result = default;
            return false;
        }

        try
        {
            ThrowIfError(item[0], 0);
            var entry = Parse(receiver, item[0], buffer.Span);
            Counters.OnReceived(1, entry.Length, entry.IsTruncated ? 1 : 0);
            result = new ReceiveResult(entry.Length, entry.Address, entry.IsTruncated);
            return true;
        }
        finally
        {
            receiver.Engine.ReturnBuffers(item);
        }
    }

    /// <summary>Reads one filled provided buffer (recvmsg_out, name, control, payload) and copies its payload into <paramref name="destination"/>.</summary>
    private unsafe DatagramEntry Parse(IoUringReceiver receiver, in InboxItem item, Span<byte> destination)
    {
        // Safety: the buffer belongs to this receiver until it is returned after this call; the kernel wrote Length
        // bytes into it, laid out as io_uring_recvmsg_out, then msg_namelen and msg_controllen bytes as the template
        // offered, then the payload (io_uring_recvmsg_validate in liburing reads it the same way).
        var start = receiver.Engine.BufferOf(item);
        var header = *(IoUringRecvMsgOut*)start;
        var name = new ReadOnlySpan<byte>(start + sizeof(IoUringRecvMsgOut), (int)Math.Min(header.NameLength, (uint)LinuxReceiveVectors.NameStride));
        var control = new ReadOnlySpan<byte>(start + IoUringEngine.HeaderBytes, (int)Math.Min(header.ControlLength, (uint)receiver.ControlReserve));
        var payloadStart = IoUringEngine.HeaderBytes + receiver.ControlReserve;
        var inBuffer = Math.Max(0, item.Length - payloadStart);
        var length = Math.Min(Math.Min(inBuffer, (int)header.PayloadLength), destination.Length);
        new ReadOnlySpan<byte>(start + payloadStart, length).CopyTo(destination);

        var metadata = LinuxReceiveVectors.ReadControl(control, _localPort);
        return new DatagramEntry
        {
            Length = length,
            Address = LinuxSockaddr.Read(name),
            IsTruncated = header.PayloadLength > length || (header.Flags & Constants.MSG_TRUNC) != 0,
            LocalAddress = metadata.Destination,
            InterfaceIndex = metadata.InterfaceIndex,
            Ecn = metadata.Ecn,
        };
    }

    /// <summary>An error the ring reported for this socket: thrown when it is the first item of a receive.</summary>
    private void ThrowIfError(in InboxItem item, int before)
    {
        if (item.Error == Errno.None)
        {
            return;
        }

        System.Diagnostics.Debug.Assert(before == 0, "the inbox hands an error only as the first item of a take");
        throw item.Error is Errno.EBADF or Errno.ENOTSOCK ? Disposed() : new SocketException((int)item.Error.ToSocketError());
    }

    private void ThrowIfDisposed()
    {
        if (IsDisposed)
        {
            throw Disposed();
        }
    }
}
