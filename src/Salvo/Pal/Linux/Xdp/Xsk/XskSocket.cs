using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: every pointer passed to the kernel here addresses a local of the calling frame (the UMEM registration, a ring
// size, the offsets, the bind address, the statistics), with its own size as the length, for one synchronous call; the
// kick and the wake-up pass no buffer at all.
/// <summary>
/// One AF_XDP socket bound to one queue of one interface, with its UMEM registered and its four rings mapped, set up in
/// the order Documentation/networking/af_xdp.rst gives (register the UMEM, size the fill and completion rings, size the
/// RX and TX rings, read XDP_MMAP_OFFSETS, map the rings, bind). Zero-copy is asked for first; where the driver refuses
/// it (veth has no zero-copy support) the socket is made again in copy mode, since a socket whose bind failed has lost
/// its fill and completion rings to the failed attempt. Every receive frame is on the fill ring once it opens.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class XskSocket : IDisposable
{
    private XskSocket(SafeSocketHandle handle, XskRing fill, XskRing completion, XskRing rx, XskRing tx, bool zeroCopy, uint interfaceIndex, uint queueId)
    {
        Handle = handle;
        Fill = fill;
        Completion = completion;
        Rx = rx;
        Tx = tx;
        ZeroCopy = zeroCopy;
        InterfaceIndex = interfaceIndex;
        QueueId = queueId;
    }

    public SafeSocketHandle Handle { get; }

    /// <summary>This process produces free receive frames here for the kernel to fill.</summary>
    public XskRing Fill { get; }

    /// <summary>The kernel hands sent frames back here.</summary>
    public XskRing Completion { get; }

    /// <summary>The kernel produces received frames here.</summary>
    public XskRing Rx { get; }

    /// <summary>This process produces frames to send here.</summary>
    public XskRing Tx { get; }

    /// <summary>Whether the driver moves frames in and out of the UMEM itself (XDP_ZEROCOPY) rather than copying them (XDP_COPY).</summary>
    public bool ZeroCopy { get; }

    public uint InterfaceIndex { get; }

    public uint QueueId { get; }

    /// <summary>The descriptor, for the XSKMAP entry and for poll(2).</summary>
    public int Descriptor => (int)Handle.DangerousGetHandle();

    /// <summary>
    /// Opens a socket on queue <paramref name="queueId"/> of interface <paramref name="interfaceIndex"/> over
    /// <paramref name="umem"/>; null with what failed (the step and the errno) when the kernel refuses.
    /// </summary>
    /// <param name="umem">The UMEM to register; its receive frames go on the fill ring.</param>
    /// <param name="interfaceIndex">The interface, in the calling thread's network namespace.</param>
    /// <param name="queueId">The receive queue.</param>
    /// <param name="failure">What failed, when null is returned.</param>
    /// <param name="bindErrno">The errno of the last bind, when that was the step that failed: EINVAL for a queue the device does not have (net/xdp/xsk.c checks real_num_rx_queues).</param>
    public static XskSocket? TryOpen(XdpUmem umem, uint interfaceIndex, uint queueId, out string? failure, out Errno bindErrno)
    {
        failure = null;
        bindErrno = Errno.None;
        foreach (var mode in (ReadOnlySpan<ushort>)[XskConstants.XDP_ZEROCOPY, XskConstants.XDP_COPY])
        {
            var socket = TryOpen(umem, interfaceIndex, queueId, (ushort)(mode | XskConstants.XDP_USE_NEED_WAKEUP), out failure, out bindErrno);
            if (socket is not null)
            {
                socket.FillWithReceiveFrames(umem);
                return socket;
            }
        }

        return null;
    }

    /// <summary>Kicks the kernel to send what the TX ring holds, where it asked to be kicked (copy mode always does).</summary>
    public void KickTransmit()
    {
        if (Tx.NeedsWakeup)
        {
            // EAGAIN, EBUSY, ENOBUFS: the kernel is still sending the ring and will take the rest at the next kick;
            // ENETDOWN: the link is down and the frames come back through the completion ring (libxdp ignores the same).
            _ = Libc.SendTo(Handle, null, 0, Constants.MSG_DONTWAIT, null, 0);
        }
    }

    /// <summary>Wakes the driver to take the fill ring, where it asked to be woken (zero-copy drivers that ran out of frames).</summary>
    public void WakeForFill()
    {
        if (Fill.NeedsWakeup)
        {
            _ = Libc.RecvFrom(Handle, null, 0, Constants.MSG_DONTWAIT, null, null);
        }
    }

    /// <summary>The kernel's drop counters for this socket; zeros when it does not say.</summary>
    public XdpStatistics ReadStatistics()
    {
        XdpStatistics statistics = default;
        var length = (uint)sizeof(XdpStatistics);
        _ = Libc.GetSockOpt(Handle, XskConstants.SOL_XDP, XskConstants.XDP_STATISTICS, &statistics, &length);
        return statistics;
    }

    /// <summary>
    /// Asks the kernel to busy-poll the queue from this socket's system calls (SO_PREFER_BUSY_POLL, SO_BUSY_POLL of
    /// <paramref name="microseconds"/>, SO_BUSY_POLL_BUDGET of <paramref name="budget"/>; net/core/sock.c); null when set,
    /// otherwise what was refused (raising the budget above net.core.busy_poll needs CAP_NET_ADMIN).
    /// </summary>
    public string? TryPreferBusyPoll(int microseconds, int budget)
    {
        foreach (var (name, value, label) in (ReadOnlySpan<(int, int, string)>)[
            (XskConstants.SO_PREFER_BUSY_POLL, 1, "SO_PREFER_BUSY_POLL"),
            (Constants.SO_BUSY_POLL, microseconds, "SO_BUSY_POLL"),
            (XskConstants.SO_BUSY_POLL_BUDGET, budget, "SO_BUSY_POLL_BUDGET")])
        {
            var errno = LinuxSocketOption.TrySet(Handle, Constants.SOL_SOCKET, name, value);
            if (errno != Errno.None)
            {
                return $"{label}: {errno}";
            }
        }

        return null;
    }

    public void Dispose()
    {
        // Closing the socket unbinds it and drops the kernel's references to the rings and the UMEM; the mappings go after.
        Handle.Dispose();
        Fill.Dispose();
        Completion.Dispose();
        Rx.Dispose();
        Tx.Dispose();
    }

    private void FillWithReceiveFrames(XdpUmem umem)
    {
        var frames = (uint)umem.ReceiveFrames;
        var free = Fill.Free(frames);
        var first = Fill.ProducerIndex;
        for (uint i = 0; i < free; i++)
        {
            Fill.AddressAt(first + i) = i * (ulong)umem.FrameSize;
        }

        Fill.Submit(free);
    }

    private static XskSocket? TryOpen(XdpUmem umem, uint interfaceIndex, uint queueId, ushort bindFlags, out string? failure, out Errno bindErrno)
    {
        bindErrno = Errno.None;
        var descriptor = Libc.Socket(XskConstants.AF_XDP, NetlinkConstants.SOCK_RAW | NetlinkConstants.SOCK_CLOEXEC, 0);
        if (descriptor < 0)
        {
            failure = $"socket(AF_XDP): {Libc.LastErrno}";
            return null;
        }

        var handle = new SafeSocketHandle(descriptor, ownsHandle: true);
        var rings = new XskRing?[4];
        var handedOver = false;
        try
        {
            var registration = umem.Registration;
            var receiveEntries = (uint)umem.ReceiveFrames;
            var sendEntries = (uint)(umem.FrameCount - umem.ReceiveFrames);
            if ((failure = Set(handle, XskConstants.XDP_UMEM_REG, &registration, (uint)sizeof(XdpUmemReg), "XDP_UMEM_REG")
                    ?? SetSize(handle, XskConstants.XDP_UMEM_FILL_RING, receiveEntries, "XDP_UMEM_FILL_RING")
                    ?? SetSize(handle, XskConstants.XDP_UMEM_COMPLETION_RING, sendEntries, "XDP_UMEM_COMPLETION_RING")
                    ?? SetSize(handle, XskConstants.XDP_RX_RING, receiveEntries, "XDP_RX_RING")
                    ?? SetSize(handle, XskConstants.XDP_TX_RING, sendEntries, "XDP_TX_RING")) is not null)
            {
                return null;
            }

            XdpMmapOffsets offsets = default;
            var length = (uint)sizeof(XdpMmapOffsets);
            if (Libc.GetSockOpt(handle, XskConstants.SOL_XDP, XskConstants.XDP_MMAP_OFFSETS, &offsets, &length) != 0)
            {
                failure = $"XDP_MMAP_OFFSETS: {Libc.LastErrno}";
                return null;
            }

            var errno = Errno.None;
            rings[0] = XskRing.TryMap(descriptor, offsets.Fill, receiveEntries, sizeof(ulong), XskConstants.XDP_UMEM_PGOFF_FILL_RING, out errno);
            rings[1] = rings[0] is null ? null : XskRing.TryMap(descriptor, offsets.Completion, sendEntries, sizeof(ulong), XskConstants.XDP_UMEM_PGOFF_COMPLETION_RING, out errno);
            rings[2] = rings[1] is null ? null : XskRing.TryMap(descriptor, offsets.Rx, receiveEntries, sizeof(XdpDesc), XskConstants.XDP_PGOFF_RX_RING, out errno);
            rings[3] = rings[2] is null ? null : XskRing.TryMap(descriptor, offsets.Tx, sendEntries, sizeof(XdpDesc), XskConstants.XDP_PGOFF_TX_RING, out errno);
            if (rings[3] is null)
            {
                failure = $"mmap of the rings: {errno}";
                return null;
            }

            var address = new SockaddrXdp { Family = XskConstants.AF_XDP, Flags = bindFlags, IfIndex = interfaceIndex, QueueId = queueId };
            if (Libc.Bind(handle, &address, (uint)sizeof(SockaddrXdp)) != 0)
            {
                bindErrno = Libc.LastErrno;
                var mode = (bindFlags & XskConstants.XDP_ZEROCOPY) != 0 ? "zero-copy" : "copy mode";
                failure = $"bind to interface {interfaceIndex} queue {queueId} in {mode}: {bindErrno}";
                return null;
            }

            var socket = new XskSocket(handle, rings[0]!, rings[1]!, rings[2]!, rings[3]!, (bindFlags & XskConstants.XDP_ZEROCOPY) != 0, interfaceIndex, queueId);
            handedOver = true;
            return socket;
        }
        finally
        {
            if (!handedOver)
            {
                // Not handed over: close the socket before unmapping what it shares.
                handle.Dispose();
                foreach (var ring in rings)
                {
                    ring?.Dispose();
                }
            }
        }
    }

    private static string? SetSize(SafeSocketHandle handle, int option, uint entries, string label) =>
        Set(handle, option, &entries, sizeof(uint), label);

    private static string? Set(SafeSocketHandle handle, int option, void* value, uint length, string label) =>
        Libc.SetSockOpt(handle, XskConstants.SOL_XDP, option, value, length) == 0 ? null : $"{label}: {Libc.LastErrno}";
}
