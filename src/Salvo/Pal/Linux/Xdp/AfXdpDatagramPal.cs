using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// AF_XDP: the bound UDP socket reserves the port; an XDP program on the interface that holds the bound address sends
/// that port's frames to one AF_XDP socket per receive queue; receives copy payloads out of the RX rings and hand the
/// frames straight back on the fill ring, sends frame datagrams in free UMEM frames on the TX ring. What reaches the
/// UDP socket anyway (datagrams from this host, which never cross the interface) is received from it too, and a
/// datagram to a neighbour whose Ethernet address the kernel does not know yet goes out through it, which makes the
/// kernel resolve the address for the next one. Create on a thread in the interface's network namespace: the interface,
/// the program, the AF_XDP sockets and the netlink socket that later looks up neighbours all belong to it.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class AfXdpDatagramPal : DatagramPal
{
    private readonly LinuxDatagramPal _kernel;
    private readonly RouteNetlink _netlink;
    private readonly XdpRedirect _redirect;
    private readonly XskQueue[] _queues;
    private readonly SafeHandle[] _pollHandles;
    private readonly NetworkInterfaceInfo _link;
    private readonly UdpReceivePolicy _policy;
    private readonly DatagramAddress _local;
    private readonly int _maxPayload;
    private readonly bool _busyPoll;
    private readonly Lock _receiveLock = new();
    private readonly Lock _sendLock = new();
    private AfXdpReceiveWaiter? _waiter;
    private ReceiveBatch? _single;

    public AfXdpDatagramPal(Socket socket, SocketCounters counters, DatagramSocketOptions options)
        : base(socket, counters, options)
    {
        var bound = (IPEndPoint)socket.LocalEndPoint!;
        if (AfXdpLimits.RefuseAddress(bound.Address) is string refusal)
        {
            throw new NotSupportedException($"Backend AfXdp: LocalEndPoint {refusal}.");
        }

        _local = DatagramAddress.FromIPEndPoint(bound).Unmap();
        _busyPoll = options.AfXdpBusyPoll;
        _kernel = new LinuxDatagramPal(socket, counters, options);
        var made = new List<IDisposable> { _kernel };
        try
        {
            _netlink = RouteNetlink.Open();
            made.Add(_netlink);
            _link = NeighbourLookup.InterfaceOf(_netlink, bound.Address);
            if (_link.Mtu + UdpFrame.EthernetLength > XdpUmem.DefaultFrameSize - XdpUmem.KernelHeadroom)
            {
                // The kernel drops a received frame longer than its UMEM frame after the headroom (net/xdp/xsk.c, __xsk_rcv).
                throw new InvalidOperationException(
                    $"{_link.Name} has an MTU of {_link.Mtu}; AF_XDP frames here hold {XdpUmem.DefaultFrameSize - XdpUmem.KernelHeadroom - UdpFrame.EthernetLength} bytes of packet.");
            }

            var queues = new List<XskQueue>();
            for (var queue = 0; queue < Math.Max(1, _link.RxQueues); queue++)
            {
                // Netlink reports the queues allocated (IFLA_NUM_RX_QUEUES: one per possible CPU on veth), the kernel binds
                // only those in use (real_num_rx_queues): the first queue past them ends the list.
                if (OpenQueue(_link, queue, queues.Count == 0) is not { } opened)
                {
                    break;
                }

                queues.Add(opened);
                made.Add(opened);
            }

            _queues = [.. queues];
            _policy = MakeReceivePolicy(_netlink, _link, _local, _queues[0].Socket.ZeroCopy);

            _redirect = XdpRedirect.Attach(_link.Index, bound.Port, _queues.Length, XdpAttachMode.Auto, _local.ToIPAddress());
            made.Add(_redirect);
            for (var queue = 0; queue < _queues.Length; queue++)
            {
                _redirect.RegisterSocket(queue, _queues[queue].Socket.Handle);
            }
        }
        catch (InvalidOperationException e)
        {
            DisposeAll(made);
            throw new NotSupportedException($"Backend AfXdp cannot run on {bound}: {e.Message}", e);
        }
        catch
        {
            DisposeAll(made);
            throw;
        }

        if (_busyPoll)
        {
            foreach (var queue in _queues)
            {
                // Without the privilege to raise the budget the rings are still spun on; the kernel just polls less.
                _ = queue.Socket.TryPreferBusyPoll(BusyPollMicroseconds, BusyPollBudget);
            }
        }

        _pollHandles = [socket.SafeHandle, .. _queues.Select(queue => (SafeHandle)queue.Socket.Handle)];
        _maxPayload = Math.Min(_queues[0].Umem.FrameSize, _link.Mtu + UdpFrame.EthernetLength) - UdpFrame.HeaderLength(_local.Family);
        Capabilities = new DatagramCapabilities(BatchedIo: true, Gso: false, Gro: false, MaxGsoSegments: 1)
        {
            AfXdp = _queues[0].Socket.ZeroCopy ? AfXdpMode.ZeroCopy : AfXdpMode.Copy,
        };
    }

    /// <summary>The time the kernel busy-polls the queue per system call on the socket, in microseconds: libxdp's xdpsock sample uses 20.</summary>
    private const int BusyPollMicroseconds = 20;

    /// <summary>Frames per busy-poll pass: one default batch.</summary>
    private const int BusyPollBudget = 64;

    public override DatagramCapabilities Capabilities { get; }

    public override DatagramBackend Backend => DatagramBackend.AfXdp;

    /// <summary>A receive with a zero timeout reads the rings (shared memory, no system call) and returns.</summary>
    public override bool CanSpinReceive => true;

    /// <summary>A blocked receive sees the close within one poll slice.</summary>
    public override bool BlockingReceiveWakesOnClose => false;

    /// <summary>The interface the program is attached to, with the mode in force (native or generic).</summary>
    internal XdpRedirect Redirect => _redirect;

    /// <summary>Frames the program handed over that the kernel would not have delivered to this socket: counted by reason, not delivered.</summary>
    internal long MalformedFrames => Counters.Snapshot().MalformedFrames;

    /// <summary>Datagrams sent through the UDP socket because the neighbour's Ethernet address was not yet known, or the route leaves by another interface.</summary>
    internal long KernelSends => Interlocked.Read(ref _kernelSends);

    public override int Receive(ReceiveBatch batch, int timeoutMilliseconds)
    {
        var deadline = new PollDeadline(timeoutMilliseconds);
        while (true)
        {
            var count = TakeInto(batch);
            if (count > 0)
            {
                return count;
            }

            if (!deadline.TryNextSlice(out var slice))
            {
                return 0;
            }

            WaitForFrames(slice);
        }
    }

    public override ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken)
    {
        var count = TakeInto(batch);
        return count > 0 ? new(count) : ReceiveSlowAsync(batch, cancellationToken);
    }

    public override ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken) => new(Send(batch));

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken)
    {
        // The single-datagram call is not the hot path: one datagram through a one-slot batch, then copied.
        var single = _single ??= new ReceiveBatch(capacity: 1, bufferSize: ReceiveBatch.DefaultBufferSize);
        _ = await ReceiveAsync(single, cancellationToken).ConfigureAwait(false);
        var datagram = single[0];
        var length = Math.Min(datagram.Length, buffer.Length);
        datagram.Payload[..length].CopyTo(buffer.Span);
        return new ReceiveResult(length, datagram.Source, datagram.IsTruncated || datagram.Length > buffer.Length);
    }

    protected override void Close()
    {
        // The link first, so the interface's frames go back to the kernel; then no receive or send may be inside a ring
        // while its mapping goes (both check IsDisposed under their lock, and the base set it before calling here).
        _redirect.Dispose();
        // shutdown(2) of the UDP socket wakes every poll(2) that waits on it beside the rings.
        _kernel.Dispose();
        _waiter?.Dispose();
        lock (_receiveLock)
        {
            lock (_sendLock)
            {
                foreach (var queue in _queues)
                {
                    queue.Dispose();
                }
            }
        }

        _netlink.Dispose();
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReceiveSlowAsync(ReceiveBatch batch, CancellationToken cancellationToken)
    {
        var waiter = _waiter ?? MakeWaiter();
        while (true)
        {
            await waiter.WaitAsync(cancellationToken).ConfigureAwait(false);
            var count = TakeInto(batch);
            if (count > 0)
            {
                return count;
            }
        }
    }

    private AfXdpReceiveWaiter MakeWaiter()
    {
        var made = new AfXdpReceiveWaiter(this);
        var waiter = Interlocked.CompareExchange(ref _waiter, made, null) ?? made;
        if (waiter != made)
        {
            made.Dispose();
        }

        return waiter;
    }

    /// <summary>The AF_XDP socket of one queue, or null for a queue the device does not use (only where <paramref name="required"/> is false).</summary>
    private static XskQueue? OpenQueue(NetworkInterfaceInfo link, int queue, bool required)
    {
        var umem = XdpUmem.TryCreate(XdpUmem.DefaultFrameSize, XdpUmem.DefaultFrameCount, out var errno)
            ?? throw new InvalidOperationException($"mapping {XdpUmem.DefaultFrameSize * XdpUmem.DefaultFrameCount >> 20} MiB of UMEM failed: {errno}");
        var socket = XskSocket.TryOpen(umem, (uint)link.Index, (uint)queue, out var failure, out var bindErrno);
        if (socket is null)
        {
            umem.Dispose();
            if (!required && bindErrno == Errno.EINVAL)
            {
                return null;
            }

            var hint = bindErrno == Errno.EBUSY ? $" (another AF_XDP socket holds this queue: {AfXdpLimits.OneSocketPerInterface})" : string.Empty;
            throw new InvalidOperationException($"the AF_XDP socket for queue {queue} of {link.Name}: {failure}{hint}");
        }

        return new XskQueue(socket, umem);
    }

    private static void DisposeAll(List<IDisposable> made)
    {
        for (var i = made.Count - 1; i >= 0; i--)
        {
            made[i].Dispose();
        }
    }
}
