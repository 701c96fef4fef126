using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Linux: recvmmsg/sendmmsg on the socket's descriptor, always non-blocking (MSG_DONTWAIT). When the
/// socket is empty, the async path waits on the runtime's own epoll engine through a zero-byte
/// MSG_PEEK receive, which consumes nothing; the blocking path waits in poll(2).
/// </summary>
internal sealed class LinuxDatagramPal : DatagramPal
{
    // poll(2) slices for the blocking model, so a disposal that races the poll is seen within this time
    // even if the shutdown(2) wake-up was missed.
    private const int PollSliceMilliseconds = 250;

    private static readonly Lazy<bool> s_isSupported = new(Probe);

    private readonly SafeSocketHandle _handle;

    public LinuxDatagramPal(Socket socket, SocketCounters counters)
        : base(socket, counters)
    {
        _handle = socket.SafeHandle;
    }

    /// <summary>Whether this process can use the batched backend: Linux with recvmmsg and sendmmsg in libc.</summary>
    public static bool IsSupported => s_isSupported.Value;

    public override DatagramBackend Backend => DatagramBackend.LinuxBatched;

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken)
    {
        while (true)
        {
            var count = TryReceive(batch, out var errno);
            if (count > 0)
            {
                return count;
            }

            if (errno == Errno.EAGAIN)
            {
                await WaitReadableAsync(cancellationToken).ConfigureAwait(false);
            }
            else
            {
                HandleReceiveError(errno);
            }
        }
    }

    public override int Receive(ReceiveBatch batch, int timeoutMilliseconds)
    {
        var deadline = timeoutMilliseconds < 0 ? long.MaxValue : Environment.TickCount64 + timeoutMilliseconds;
        while (true)
        {
            var count = TryReceive(batch, out var errno);
            if (count > 0)
            {
                return count;
            }

            if (errno != Errno.EAGAIN)
            {
                HandleReceiveError(errno);
                continue;
            }

            var remaining = deadline - Environment.TickCount64;
            if (remaining <= 0)
            {
                return 0;
            }

            WaitForEvent(Constants.POLLIN, (int)Math.Min(remaining, PollSliceMilliseconds));
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken)
    {
        var next = BeginSend(batch);
        var accepted = 0;
        while (next < batch.Count)
        {
            var sent = TrySend(batch, next, out var errno);
            if (sent > 0)
            {
                next += sent;
                accepted += sent;
            }
            else if (errno == Errno.EAGAIN)
            {
                // The send buffer is full: let the runtime wait for room and send this one datagram,
                // then go back to batches.
                if (await SendOneThroughRuntimeAsync(batch, next, cancellationToken).ConfigureAwait(false))
                {
                    accepted++;
                }

                next++;
            }
            else
            {
                next = HandleSendError(batch, next, errno);
            }
        }

        return accepted;
    }

    public override int Send(SendBatch batch)
    {
        var next = BeginSend(batch);
        var accepted = 0;
        while (next < batch.Count)
        {
            var sent = TrySend(batch, next, out var errno);
            if (sent > 0)
            {
                next += sent;
                accepted += sent;
            }
            else if (errno == Errno.EAGAIN)
            {
                WaitForEvent(Constants.POLLOUT, PollSliceMilliseconds);
            }
            else
            {
                next = HandleSendError(batch, next, errno);
            }
        }

        return accepted;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken)
    {
        while (true)
        {
            if (TryReceiveOne(buffer, out var result, out var errno))
            {
                return result;
            }

            if (errno == Errno.EAGAIN)
            {
                await WaitReadableAsync(cancellationToken).ConfigureAwait(false);
            }
            else
            {
                HandleReceiveError(errno);
            }
        }
    }

    protected override void Close()
    {
        // shutdown(2) wakes a thread blocked in poll(2) on this socket; close(2) alone would not.
        var added = false;
        try
        {
            _handle.DangerousAddRef(ref added);
            _ = Libc.Shutdown((int)_handle.DangerousGetHandle(), Constants.SHUT_RDWR);
        }
        catch (ObjectDisposedException)
        {
            // Already closed by the runtime.
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }

        Socket.Dispose();
    }

    private unsafe int TryReceive(ReceiveBatch batch, out Errno errno)
    {
        var vectors = batch.LinuxVectors ??= new LinuxReceiveVectors(batch);
        vectors.Reset(batch.Capacity);
        int received;
        var added = false;
        try
        {
            AddRef(ref added);
            received = Libc.RecvMmsg((int)_handle.DangerousGetHandle(), vectors.Headers, (uint)batch.Capacity, Constants.MSG_DONTWAIT, null);
            errno = received < 0 ? Libc.LastErrno : Errno.None;
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }

        if (received <= 0)
        {
            batch.SetCount(0);
            if (received == 0)
            {
                // Zero messages only after shutdown(2): the socket is being disposed.
                throw Disposed();
            }

            return 0;
        }

        var entries = batch.Entries;
        long bytes = 0;
        var truncated = 0;
        for (var i = 0; i < received; i++)
        {
            ref readonly var header = ref vectors.Headers[i];
            ref var entry = ref entries[i];
            entry.Offset = i * batch.SlotStride;
            entry.Length = (int)header.Length;
            entry.Address = DatagramAddress.FromSockaddr(vectors.Name(i));
            entry.IsTruncated = (header.Header.Flags & Constants.MSG_TRUNC) != 0;
            bytes += entry.Length;
            truncated += entry.IsTruncated ? 1 : 0;
        }

        batch.SetCount(received);
        Counters.OnReceived(received, bytes, truncated);
        return received;
    }

    private unsafe bool TryReceiveOne(Memory<byte> buffer, out ReceiveResult result, out Errno errno)
    {
        Span<byte> name = stackalloc byte[LinuxReceiveVectors.NameStride];
        nint received;
        int flags;
        var added = false;
        using (var pin = buffer.Pin())
        {
            try
            {
                AddRef(ref added);
                fixed (byte* namePointer = name)
                {
                    IOVec iov = new() { Base = pin.Pointer, Length = (nuint)buffer.Length };
                    MsgHdr header = new() { Name = namePointer, NameLength = (uint)name.Length, IOVecs = &iov, IOVecCount = 1 };
                    received = Libc.RecvMsg((int)_handle.DangerousGetHandle(), &header, Constants.MSG_DONTWAIT);
                    errno = received < 0 ? Libc.LastErrno : Errno.None;
                    flags = header.Flags;
                    name = name[..(int)header.NameLength];
                }
            }
            finally
            {
                if (added)
                {
                    _handle.DangerousRelease();
                }
            }
        }

        if (received < 0)
        {
            result = default;
            return false;
        }

        var isTruncated = (flags & Constants.MSG_TRUNC) != 0;
        var source = DatagramAddress.FromSockaddr(name);
        if (!source.HasValue && IsDisposed)
        {
            // recvmsg returns 0 with no sender after shutdown(2).
            throw Disposed();
        }

        Counters.OnReceived(1, received, isTruncated ? 1 : 0);
        result = new ReceiveResult((int)received, source, isTruncated);
        return true;
    }

    private int BeginSend(SendBatch batch)
    {
        batch.ResetOutcome();
        if (batch.Count == 0)
        {
            return 0;
        }

        var vectors = batch.LinuxVectors ??= new LinuxSendVectors(batch);
        vectors.Prepare(batch, IsIPv6);
        return 0;
    }

    private unsafe int TrySend(SendBatch batch, int start, out Errno errno)
    {
        var vectors = batch.LinuxVectors!;
        int sent;
        var added = false;
        try
        {
            AddRef(ref added);
            sent = Libc.SendMmsg((int)_handle.DangerousGetHandle(), vectors.Headers + start, (uint)(batch.Count - start), Constants.MSG_DONTWAIT);
            errno = sent < 0 ? Libc.LastErrno : Errno.None;
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }

        if (sent > 0)
        {
            long bytes = 0;
            var entries = batch.Entries;
            for (var i = start; i < start + sent; i++)
            {
                bytes += entries[i].Length;
            }

            Counters.OnSent(sent, bytes);
        }

        return sent;
    }

    /// <summary>Deals with a failed send of entry <paramref name="index"/>; returns the next entry to send.</summary>
    private int HandleSendError(SendBatch batch, int index, Errno errno)
    {
        switch (errno)
        {
            case Errno.EINTR:
                return index;
            case Errno.ECONNREFUSED:
                // An ICMP error from an earlier datagram, reported (and cleared) instead of sending this
                // one (sock_error() in sock_alloc_send_pskb): count it and send this datagram again.
                Counters.OnIcmpError();
                return index;
            case Errno.EBADF or Errno.ENOTSOCK:
                throw Disposed();
            default:
                // This datagram cannot go (too large, unreachable, firewall, bad address): skip it,
                // count it, and keep the rest of the batch moving.
                Counters.OnSendError();
                batch.RecordFailure(index, errno.ToSocketError());
                return index + 1;
        }
    }

    private void HandleReceiveError(Errno errno)
    {
        switch (errno)
        {
            case Errno.EINTR:
                return;
            case Errno.ECONNREFUSED or Errno.EHOSTUNREACH or Errno.ENETUNREACH:
                // An ICMP error queued on a connected socket: the peer's port is closed or unreachable.
                // Count it and keep receiving: the peer may come back.
                Counters.OnIcmpError();
                return;
            case Errno.EBADF or Errno.ENOTSOCK:
                throw Disposed();
            default:
                throw new SocketException((int)errno.ToSocketError());
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WaitReadableAsync(CancellationToken cancellationToken)
    {
        try
        {
            // A zero-byte MSG_PEEK receive parks on the runtime's epoll engine until a datagram (or an
            // error) is queued, and consumes nothing; the next recvmmsg then takes the whole batch.
            await Socket.ReceiveAsync(Memory<byte>.Empty, SocketFlags.Peek, cancellationToken).ConfigureAwait(false);
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset
                                        or SocketError.HostUnreachable or SocketError.NetworkUnreachable)
        {
            // The peek consumed a queued ICMP error.
            Counters.OnIcmpError();
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.OperationAborted || IsDisposed)
        {
            throw Disposed();
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> SendOneThroughRuntimeAsync(SendBatch batch, int index, CancellationToken cancellationToken)
    {
        var payload = batch.GetMemory(index);
        var destination = batch.GetDestination(index);
        if (!CanReach(destination))
        {
            Counters.OnSendError();
            batch.RecordFailure(index, SocketError.AddressFamilyNotSupported);
            return false;
        }

        try
        {
            if (destination.HasValue)
            {
                var address = batch.ScratchAddress ??= new SocketAddress(Socket.AddressFamily);
                (IsIPv6 ? destination.MapToIPv6() : destination).WriteTo(address);
                await Socket.SendToAsync(payload, SocketFlags.None, address, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                await Socket.SendAsync(payload, SocketFlags.None, cancellationToken).ConfigureAwait(false);
            }

            Counters.OnSent(1, payload.Length);
            return true;
        }
        catch (SocketException e) when (e.SocketErrorCode != SocketError.OperationAborted && !IsDisposed)
        {
            Counters.OnSendError();
            batch.RecordFailure(index, e.SocketErrorCode);
            return false;
        }
        catch (Exception e) when (e is ObjectDisposedException or SocketException)
        {
            throw Disposed();
        }
    }

    private unsafe void WaitForEvent(short events, int timeoutMilliseconds)
    {
        if (IsDisposed)
        {
            throw Disposed();
        }

        var added = false;
        try
        {
            AddRef(ref added);
            var poll = new PollFd { Fd = (int)_handle.DangerousGetHandle(), Events = events };
            _ = Libc.Poll(&poll, 1, timeoutMilliseconds);
        }
        finally
        {
            if (added)
            {
                _handle.DangerousRelease();
            }
        }

        if (IsDisposed)
        {
            throw Disposed();
        }
    }

    private void AddRef(ref bool added)
    {
        try
        {
            _handle.DangerousAddRef(ref added);
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }
    }

    private static bool Probe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        return NativeLibrary.TryLoad(Libc.LibraryName, out var libc)
            && NativeLibrary.TryGetExport(libc, "recvmmsg", out _)
            && NativeLibrary.TryGetExport(libc, "sendmmsg", out _);
    }
}
