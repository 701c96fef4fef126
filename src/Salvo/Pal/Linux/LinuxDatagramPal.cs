using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Linux: recvmmsg/sendmmsg on the socket's descriptor. Sends and the async path's receives are non-blocking
/// (MSG_DONTWAIT); when the socket is empty, the async path waits on the runtime's own epoll engine through a
/// zero-byte MSG_PEEK receive, which consumes nothing. The blocking receive waits inside recvmmsg itself
/// (MSG_WAITFORONE, see LinuxDatagramPal.BlockingReceive.cs), or in poll(2) once the runtime has made the
/// descriptor non-blocking.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class LinuxDatagramPal : DatagramPal
{
    private static readonly Lazy<bool> s_isSupported = new(Probe);

    private readonly SafeSocketHandle _handle;
    private readonly bool _groWanted;
    private readonly bool _sendsThroughRing;
    private readonly int _localPort;
    private bool _wantControl;
    private int _groEnabled;

    /// <param name="socket">The bound socket.</param>
    /// <param name="counters">The socket's counters.</param>
    /// <param name="options">The socket's options.</param>
    /// <param name="sendsThroughRing">Whether batches go out as io_uring sendmsg entries on the sending thread's ring instead of sendmmsg.</param>
    public LinuxDatagramPal(Socket socket, SocketCounters counters, DatagramSocketOptions options, bool sendsThroughRing = false)
        : base(socket, counters, options)
    {
        _handle = socket.SafeHandle;
        _sendsThroughRing = sendsThroughRing;
        _localPort = ((System.Net.IPEndPoint)socket.LocalEndPoint!).Port;
        _gsoEnabled = options.Gso && LinuxOffloadProbe.Gso ? 1 : 0;
        _groWanted = options.Gro && LinuxOffloadProbe.Gro;
        if (options.ReceivePacketInformation)
        {
            EnableReceiveOption(nameof(options.ReceivePacketInformation), Constants.IP_PKTINFO, Constants.IPV6_RECVPKTINFO);
        }

        if (options.ReceiveEcn)
        {
            EnableReceiveOption(nameof(options.ReceiveEcn), Constants.IP_RECVTOS, Constants.IPV6_RECVTCLASS);
        }
    }

    public override DatagramCapabilities Capabilities =>
        new(BatchedIo: true, Gso: GsoEnabled, Gro: Volatile.Read(ref _groEnabled) != 0 || _groWanted, MaxGsoSegments: GsoEnabled ? LinuxSendVectors.MaxSegments : 0);


    /// <summary>Whether this process can use the batched backend: Linux with recvmmsg and sendmmsg in libc.</summary>
    public static bool IsSupported => s_isSupported.Value;

    public override DatagramBackend Backend => DatagramBackend.LinuxBatched;

    /// <summary>recvmmsg with MSG_DONTWAIT: one system call, EAGAIN when empty.</summary>
    public override bool CanSpinReceive => true;

    /// <summary>The wait is recvmmsg or poll(2), both of which shutdown(2) at dispose wakes (inet_shutdown in net/ipv4/af_inet.c).</summary>
    public override bool BlockingReceiveWakesOnClose => true;

    public override ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken) =>
        ReceiveCoreAsync(batch, new AwaitReadiness(cancellationToken));

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReceiveCoreAsync<TWait>(ReceiveBatch batch, TWait wait)
        where TWait : struct, IWaitStrategy
    {
        while (true)
        {
            var count = TryReceive(batch, Constants.MSG_DONTWAIT, out var errno);
            if (count > 0)
            {
                return count;
            }

            if (errno != Errno.EAGAIN)
            {
                HandleReceiveError(errno);
            }
            else if (!await wait.ReadableAsync(this).ConfigureAwait(false))
            {
                return 0;
            }
        }
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
        // shutdown(2) wakes a thread blocked in recvmmsg or poll(2) on this socket; close(2) alone would not.
        try
        {
            _ = Libc.Shutdown(_handle, Constants.SHUT_RDWR);
        }
        catch (ObjectDisposedException)
        {
            // Already closed by the runtime.
        }

        Socket.Dispose();
    }

    private int TryReceive(ReceiveBatch batch, int flags, out Errno errno) => TryReceive(batch, flags, oneMessage: false, out errno, out _);

    /// <summary>
    /// One receive call: recvmmsg for up to the batch's capacity, or with <paramref name="oneMessage"/> recvmsg(2) into
    /// the batch's first header (one message: a datagram, or one GRO train). <paramref name="messages"/> is what the
    /// kernel returned, before GRO trains are split into datagrams.
    /// </summary>
    private unsafe int TryReceive(ReceiveBatch batch, int flags, bool oneMessage, out Errno errno, out int messages)
    {
        EnableGroFor(batch);
        var vectors = VectorsOf(batch);
        vectors.Reset(_wantControl);
        int received;
        try
        {
            if (oneMessage)
            {
                // Safety: as below; recvmsg writes through the first header only, and its length goes where recvmmsg
                // would have put it, so one Parse reads both.
                var length = Libc.RecvMsg(_handle, &vectors.Headers->Header, flags);
                received = length < 0 ? -1 : 1;
                vectors.Headers->Length = length < 0 ? 0 : (uint)length;
            }
            else
            {
                // Safety: the vectors were made for this batch, with exactly Capacity pinned headers pointing into its
                // pinned buffer; Reset restored every length the kernel may write through.
                received = Libc.RecvMmsg(_handle, vectors.Headers, (uint)batch.Capacity, flags, null);
            }
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        messages = Math.Max(received, 0);

        errno = received < 0 ? Libc.LastErrno : Errno.None;

        if (received <= 0 || IsDisposed)
        {
            batch.SetCount(0);
            if (received >= 0)
            {
                // Zero messages only after shutdown(2); a wait that shutdown(2) ends returns one empty message with no
                // sender (__skb_wait_for_more_packets in net/core/datagram.c reports RCV_SHUTDOWN as success), which is
                // not a datagram. Either way the socket is being disposed.
                throw Disposed();
            }

            return 0;
        }

        var count = vectors.Parse(batch, received, _localPort, out var bytes, out var truncated);
        batch.SetCount(count);
        Counters.OnReceived(count, bytes, truncated);
        return count;
    }

    /// <summary>
    /// Turns GRO on at the first receive into buffers that can hold a whole coalesced buffer; a socket
    /// with GRO on refuses smaller buffers, which would cut coalesced datagrams.
    /// </summary>
    private void EnableGroFor(ReceiveBatch batch)
    {
        if (!_groWanted)
        {
            return;
        }

        var canHold = batch.BufferSize >= ReceiveBatch.DefaultBufferSize;
        if (Volatile.Read(ref _groEnabled) != 0)
        {
            if (!canHold)
            {
                throw new ArgumentException(
                    $"GRO is on for this socket, so a ReceiveBatch needs BufferSize {ReceiveBatch.DefaultBufferSize} to hold a coalesced buffer (this one has {batch.BufferSize}). Use full-size batches, or set DatagramSocketOptions.Gro = false.",
                    nameof(batch));
            }
        }
        else if (canHold)
        {
            if (LinuxSocketOption.TrySet(_handle, Constants.SOL_UDP, Constants.UDP_GRO, 1) == Errno.None)
            {
                _wantControl = true;
                Volatile.Write(ref _groEnabled, 1);
            }
        }
        else
        {
            return;
        }

        batch.EnsureEntryCapacity(batch.Capacity * LinuxReceiveVectors.MaxSegmentsPerBuffer);
    }

    /// <summary>
    /// Turns a per-datagram control message on for the socket's family (both levels on a dual-stack socket); an
    /// option the kernel refuses fails the open, naming it, rather than leaving the datagrams without it.
    /// </summary>
    private void EnableReceiveOption(string option, int ipName, int ipv6Name)
    {
        if (!IsIPv6 || Socket.DualMode)
        {
            ThrowIfRefused(option, "IPPROTO_IP", LinuxSocketOption.TrySet(_handle, Constants.IPPROTO_IP, ipName, 1));
        }

        if (IsIPv6)
        {
            ThrowIfRefused(option, "IPPROTO_IPV6", LinuxSocketOption.TrySet(_handle, Constants.IPPROTO_IPV6, ipv6Name, 1));
        }

        _wantControl = true;
    }

    private static void ThrowIfRefused(string option, string level, Errno errno)
    {
        if (errno != Errno.None)
        {
            throw new NotSupportedException($"{option}: the kernel refused the {level} socket option ({errno}); leave {option} off.");
        }
    }

    private unsafe bool TryReceiveOne(Memory<byte> buffer, out ReceiveResult result, out Errno errno)
    {
        Span<byte> name = stackalloc byte[LinuxReceiveVectors.NameStride];
        nint received;
        int flags;
        try
        {
            // Safety: `fixed` pins the caller's memory and the name for exactly the synchronous recvmsg call; the
            // kernel keeps no pointer after it returns. (Memory.Pin would take a GC handle on every datagram.)
            fixed (byte* data = buffer.Span)
            fixed (byte* namePointer = name)
            {
                IOVec iov = new() { Base = data, Length = (nuint)buffer.Length };
                MsgHdr header = new() { Name = namePointer, NameLength = (uint)name.Length, IOVecs = &iov, IOVecCount = 1 };
                received = Libc.RecvMsg(_handle, &header, Constants.MSG_DONTWAIT);
                errno = received < 0 ? Libc.LastErrno : Errno.None;
                flags = header.Flags;
                name = name[..(int)header.NameLength];
            }
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        if (received < 0)
        {
            result = default;
            return false;
        }

        var isTruncated = (flags & Constants.MSG_TRUNC) != 0;
        var source = LinuxSockaddr.Read(name);
        if (!source.HasValue && IsDisposed)
        {
            // recvmsg returns 0 with no sender after shutdown(2).
            throw Disposed();
        }

        Counters.OnReceived(1, received, isTruncated ? 1 : 0);
        result = new ReceiveResult((int)received, source, isTruncated);
        return true;
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

    private static LinuxReceiveVectors VectorsOf(ReceiveBatch batch)
    {
        if (batch.BackendState is not LinuxReceiveVectors vectors)
        {
            batch.BackendState = vectors = new LinuxReceiveVectors(batch);
        }

        return vectors;
    }

    private static LinuxSendVectors VectorsOf(SendBatch batch)
    {
        if (batch.BackendState is not LinuxSendVectors vectors)
        {
            batch.BackendState = vectors = new LinuxSendVectors(batch);
        }

        return vectors;
    }

    private static bool Probe()
    {
        return NativeLibrary.TryLoad(Libc.LibraryName, out var libc)
            && NativeLibrary.TryGetExport(libc, "recvmmsg", out _)
            && NativeLibrary.TryGetExport(libc, "sendmmsg", out _);
    }
}
