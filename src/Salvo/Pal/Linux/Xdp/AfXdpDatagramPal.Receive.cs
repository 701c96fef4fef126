using System.Net;
using System.Net.Sockets;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>Receiving: payloads copied out of the RX rings, each frame handed back to the kernel on the fill ring at once.</summary>
internal sealed partial class AfXdpDatagramPal
{
    // Empty reads of the rings between two looks at the UDP socket when nothing said it was readable: datagrams from this
    // host reach it there, and a spinning receiver must not make a system call per spin to find them.
    private const int KernelLookInterval = 64;

    private long _kernelSends;
    private int _nextQueue;
    private int _emptyTakes;
    private volatile bool _kernelReadable;

    /// <summary>Copies what the RX rings hold (up to the batch's capacity) into the batch; else what the UDP socket holds; 0 when neither has any.</summary>
    private int TakeInto(ReceiveBatch batch)
    {
        lock (_receiveLock)
        {
            if (IsDisposed)
            {
                throw Disposed();
            }

            var count = 0;
            long bytes = 0;
            var truncated = 0;
            for (var i = 0; i < _queues.Length && count < batch.Capacity; i++)
            {
                var queue = _queues[(_nextQueue + i) % _queues.Length];
                count = TakeFrom(queue, batch, count, ref bytes, ref truncated);
            }

            _nextQueue++;
            if (count > 0)
            {
                batch.SetCount(count);
                Counters.OnReceived(count, bytes, truncated);
                return count;
            }

            if (_kernelReadable || ++_emptyTakes % KernelLookInterval == 0)
            {
                _kernelReadable = false;
                return ReceiveFromKernel(batch);
            }

            batch.SetCount(0);
            return 0;
        }
    }

    private int TakeFrom(XskQueue queue, ReceiveBatch batch, int count, ref long bytes, ref int truncated)
    {
        var socket = queue.Socket;
        var ready = socket.Rx.Ready((uint)(batch.Capacity - count));
        if (ready == 0)
        {
            return count;
        }

        // The fill ring has a slot for every receive frame, so there is always room for the frames being handed back.
        var free = socket.Fill.Free(ready);
        var first = socket.Rx.ConsumerIndex;
        var fill = socket.Fill.ProducerIndex;
        var entries = batch.Entries;
        for (uint i = 0; i < ready; i++)
        {
            var descriptor = socket.Rx.DescriptorAt(first + i);
            var frame = queue.Umem.Frame(descriptor.Address, (int)descriptor.Length);
            if (i < free)
            {
                socket.Fill.AddressAt(fill + i) = descriptor.Address - (descriptor.Address % (ulong)queue.Umem.FrameSize);
            }

            var status = _policy.Admit(frame, out var parsed);
            if (status != UdpFrameStatus.Ok)
            {
                Counters.OnMalformedFrame((FrameDropReason)status);
                continue;
            }

            var offset = count * batch.SlotStride;
            var length = Math.Min(parsed.PayloadLength, batch.BufferSize);
            parsed.Payload(frame)[..length].CopyTo(batch.Buffer.AsSpan(offset, length));
            ref var entry = ref entries[count++];
            entry.Offset = offset;
            entry.Length = length;
            entry.Address = parsed.Source;
            entry.IsTruncated = length < parsed.PayloadLength;
            entry.LocalAddress = parsed.Destination;
            entry.InterfaceIndex = _link.Index;
            entry.Ecn = (EcnCodepoint)(parsed.TrafficClass & 3);
            bytes += length;
            truncated += entry.IsTruncated ? 1 : 0;
        }

        socket.Rx.Release(ready);
        socket.Fill.Submit(free);
        socket.WakeForFill();
        return count;
    }

    /// <summary>
    /// The receive checks for this socket, from what the kernel says about the host now. A pseudo-header-only UDP
    /// checksum is taken as unverified in copy mode only: there the frame may be a local sender's CHECKSUM_PARTIAL skb
    /// (a veth peer's), whose sum the offload that never ran would have finished; in zero-copy mode every frame came off
    /// the wire, where such a checksum is just wrong.
    /// </summary>
    private static UdpReceivePolicy MakeReceivePolicy(RouteNetlink netlink, NetworkInterfaceInfo link, DatagramAddress local, bool zeroCopy)
    {
        var addresses = netlink.ListIPv4Addresses();
        IPAddress[] own = [.. addresses.Select(a => a.Address), .. local.Family == AddressFamily.InterNetwork ? [local.ToIPAddress()] : Array.Empty<IPAddress>()];
        var broadcasts = addresses.Select(a => a.SubnetBroadcast).OfType<IPAddress>();
        return new UdpReceivePolicy(
            link.Address, local, own, broadcasts, InterfaceSysctl.DropsUnicastInL2Multicast(link.Name, local.Family), acceptPseudoHeaderChecksum: !zeroCopy);
    }

    private int ReceiveFromKernel(ReceiveBatch batch)
    {
        try
        {
            return _kernel.Receive(batch, 0);
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }
    }

    /// <summary>
    /// Waits up to <paramref name="milliseconds"/> for frames on any ring or a datagram on the UDP socket: spinning on the
    /// rings when busy-polling, else in poll(2) on every AF_XDP socket and the UDP socket.
    /// </summary>
    internal void WaitForFrames(int milliseconds)
    {
        if (IsDisposed)
        {
            throw Disposed();
        }

        if (_busyPoll)
        {
            SpinForFrames(milliseconds);
            return;
        }

        PollAll(milliseconds);
    }

    /// <summary>Whether a ring holds frames, the UDP socket was seen readable, or the socket closed; under the receive lock, as the rings may be unmapped otherwise.</summary>
    internal bool HasFramesOrIsClosed()
    {
        lock (_receiveLock)
        {
            if (IsDisposed || _kernelReadable)
            {
                return true;
            }

            foreach (var queue in _queues)
            {
                if (queue.Socket.Rx.HasEntries)
                {
                    return true;
                }
            }

            return false;
        }
    }

    internal void ThrowIfDisposed()
    {
        if (IsDisposed)
        {
            throw Disposed();
        }
    }

    private void SpinForFrames(int milliseconds)
    {
        var until = Environment.TickCount64 + milliseconds;
        for (var spins = 1; ; spins++)
        {
            if (HasFramesOrIsClosed())
            {
                return;
            }

            if (spins % KernelLookInterval == 0)
            {
                // A look at the UDP socket (and the clock) now and then; the rings are read without a system call.
                PollAll(0);
                if (_kernelReadable || Environment.TickCount64 >= until)
                {
                    return;
                }
            }

            Thread.SpinWait(8);
        }
    }

    private void PollAll(int milliseconds)
    {
        Span<PollFd> fds = stackalloc PollFd[_pollHandles.Length];
        try
        {
            PollLeased(fds, 0, milliseconds);
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        if ((fds[0].ReturnedEvents & (Constants.POLLIN | Constants.POLLERR)) != 0)
        {
            _kernelReadable = true;
        }
    }

    /// <summary>Takes a lease on each descriptor in turn (a lease lives on the stack of one frame), then polls them all.</summary>
    private unsafe void PollLeased(Span<PollFd> fds, int index, int milliseconds)
    {
        if (index == fds.Length)
        {
            // Safety: fds lives on the caller's stack for the call and holds Length entries; every descriptor in it is
            // leased by a frame below this one, so none is closed (nor its number reused) while poll(2) waits.
            fixed (PollFd* pointer = fds)
            {
                _ = Libc.Poll(pointer, (nuint)fds.Length, milliseconds);
            }

            return;
        }

        using var lease = new DescriptorLease(_pollHandles[index]);
        fds[index] = new PollFd { Fd = lease.Descriptor, Events = Constants.POLLIN };
        PollLeased(fds, index + 1, milliseconds);
    }
}
