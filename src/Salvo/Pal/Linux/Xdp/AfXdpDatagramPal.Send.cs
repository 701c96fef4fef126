using System.Net;
using System.Net.Sockets;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// Sending: each datagram framed in a free send frame of the first queue's UMEM and produced on its TX ring, then one
/// kick; sent frames come back through the completion ring, reaped at the start of each send and whenever frames run out.
/// </summary>
internal sealed partial class AfXdpDatagramPal
{
    // A neighbour's Ethernet address is looked up again after this long, so a peer that changed its address is found.
    private const int ResolvedLifetimeMilliseconds = 30_000;

    // While the kernel resolves an unknown neighbour (ARP or neighbour discovery, started by the datagrams sent through
    // the UDP socket), the table is asked again at most this often.
    private const int UnresolvedRetryMilliseconds = 50;

    // Destinations remembered at most; past this the cache starts again, so a server answering many peers stays bounded.
    private const int MaxNeighbours = 4096;

    // How long a send waits for a frame when every one is in flight before it counts the datagram as refused.
    private const int FrameWaitMilliseconds = 1_000;

    private readonly Dictionary<DatagramAddress, NextHop> _neighbours = [];
    private SocketAddress? _kernelDestination;
    private EndPoint? _connectedEndPoint;
    private DatagramAddress _connectedPeer;

    public override int Send(SendBatch batch)
    {
        batch.ResetOutcome();
        lock (_sendLock)
        {
            ThrowIfDisposed();
            var queue = _queues[0];
            var tx = queue.Socket.Tx;
            var headerLength = UdpFrame.HeaderLength(_local.Family);
            ReapCompletions(queue);
            var entries = batch.Entries;
            var accepted = 0;
            long bytes = 0;
            uint produced = 0;
            for (var i = 0; i < batch.Count; i++)
            {
                ref readonly var entry = ref entries[i];
                var payload = batch.Arena.AsSpan(entry.Offset, entry.Length);
                var destination = (entry.Address.HasValue ? entry.Address : ConnectedPeer()).Unmap();
                // Port 0 is refused as udp_sendmsg refuses it (EINVAL, net/ipv4/udp.c): no socket can be bound to receive it.
                var refusal = !destination.HasValue ? SocketError.DestinationAddressRequired
                    : destination.Family != _local.Family ? SocketError.AddressFamilyNotSupported
                    : destination.Port == 0 ? SocketError.InvalidArgument
                    : entry.Length > _maxPayload ? SocketError.MessageSize
                    : SocketError.Success;
                if (refusal != SocketError.Success)
                {
                    Refuse(batch, i, refusal);
                    continue;
                }

                if (!TryNextHop(destination, out var mac))
                {
                    accepted += SendThroughKernel(batch, i, payload, destination) ? 1 : 0;
                    bytes += entry.Length;
                    continue;
                }

                if (!TryTakeFrame(queue, ref produced, out var address))
                {
                    Refuse(batch, i, SocketError.NoBufferSpaceAvailable);
                    continue;
                }

                var frame = queue.Umem.Frame(address, queue.Umem.FrameSize);
                payload.CopyTo(frame[headerLength..]);
                var length = UdpFrame.Write(frame, _link.Address, mac, _local, destination, entry.Length, (byte)entry.Ecn);
                tx.DescriptorAt(tx.ProducerIndex + produced) = new XdpDesc { Address = address, Length = (uint)length };
                produced++;
                accepted++;
                bytes += entry.Length;
            }

            Publish(queue, produced);
            Counters.OnSent(accepted, bytes);
            return accepted;
        }
    }

    private void Refuse(SendBatch batch, int index, SocketError error)
    {
        batch.RecordFailure(index, error);
        Counters.OnSendError();
    }

    /// <summary>Takes a free send frame, with a TX slot for it; when none is free, publishes what is produced, kicks and reaps until one is.</summary>
    private bool TryTakeFrame(XskQueue queue, ref uint produced, out ulong address)
    {
        var waitedSince = 0L;
        while (true)
        {
            if (queue.Socket.Tx.Free(produced + 1) == produced + 1 && queue.Umem.TryTakeSendFrame(out address))
            {
                return true;
            }

            Publish(queue, produced);
            produced = 0;
            ReapCompletions(queue);
            if (queue.Socket.Tx.Free(1) == 1 && queue.Umem.TryTakeSendFrame(out address))
            {
                return true;
            }

            waitedSince = waitedSince == 0 ? Environment.TickCount64 : waitedSince;
            if (IsDisposed || Environment.TickCount64 - waitedSince > FrameWaitMilliseconds)
            {
                address = 0;
                return false;
            }

            Thread.Yield();
        }
    }

    /// <summary>
    /// Publishes <paramref name="produced"/> descriptors and kicks the kernel. In copy mode each kick sends at most 32
    /// frames (TX_BATCH_SIZE in net/xdp/xsk.c) and answers EAGAIN for the rest, so it kicks until the ring is drained;
    /// a zero-copy driver drains the ring on its own after one kick.
    /// </summary>
    private void Publish(XskQueue queue, uint produced)
    {
        var socket = queue.Socket;
        if (produced > 0)
        {
            socket.Tx.Submit(produced);
        }

        var entries = socket.Tx.Entries;
        for (var kicks = 0; kicks < entries && socket.Tx.Free(entries) < entries; kicks++)
        {
            socket.KickTransmit();
            if (socket.ZeroCopy)
            {
                break;
            }
        }
    }

    private static void ReapCompletions(XskQueue queue)
    {
        var completion = queue.Socket.Completion;
        var done = completion.Ready(completion.Entries);
        var first = completion.ConsumerIndex;
        for (uint i = 0; i < done; i++)
        {
            queue.Umem.ReturnSendFrame(completion.AddressAt(first + i));
        }

        completion.Release(done);
    }

    /// <summary>
    /// The Ethernet address to frame a datagram to <paramref name="destination"/> with, from the cache or the kernel's
    /// route and neighbour tables; false when it must go through the UDP socket instead (the neighbour is not yet known,
    /// or the route leaves through another interface).
    /// </summary>
    private bool TryNextHop(DatagramAddress destination, out MacAddress mac)
    {
        var key = destination.WithPort(0);
        var now = Environment.TickCount64;
        if (!_neighbours.TryGetValue(key, out var hop) || now >= hop.RefreshAt)
        {
            if (_neighbours.Count >= MaxNeighbours)
            {
                _neighbours.Clear();
            }

            hop = Resolve(key.ToIPAddress(), now);
            _neighbours[key] = hop;
        }

        mac = hop.Mac;
        return hop.Framed;
    }

    private NextHop Resolve(IPAddress destination, long now)
    {
        try
        {
            var route = _netlink.GetRoute(destination);
            if (route.OutputInterface != _link.Index)
            {
                return new NextHop(default, Framed: false, now + ResolvedLifetimeMilliseconds);
            }

            var mac = _netlink.GetNeighbour(route.Gateway ?? destination, _link.Index);
            return mac is { } known
                ? new NextHop(known, Framed: true, now + ResolvedLifetimeMilliseconds)
                : new NextHop(default, Framed: false, now + UnresolvedRetryMilliseconds);
        }
        catch (InvalidOperationException)
        {
            // No route: the UDP socket's send reports the kernel's own error for it.
            return new NextHop(default, Framed: false, now + UnresolvedRetryMilliseconds);
        }
    }

    private bool SendThroughKernel(SendBatch batch, int index, ReadOnlySpan<byte> payload, DatagramAddress destination)
    {
        _kernelDestination ??= new SocketAddress(Socket.AddressFamily);
        try
        {
            _ = Socket.SendTo(payload, SocketFlags.None, WriteDestination(_kernelDestination, destination));
            Interlocked.Increment(ref _kernelSends);
            return true;
        }
        catch (SocketException e)
        {
            Refuse(batch, index, e.SocketErrorCode);
            return false;
        }
    }

    /// <summary>The connected peer (sends without a destination go to it), read again only when the socket connects anew.</summary>
    private DatagramAddress ConnectedPeer()
    {
        var remote = Socket.Connected ? Socket.RemoteEndPoint : null;
        if (!ReferenceEquals(remote, _connectedEndPoint))
        {
            _connectedEndPoint = remote;
            _connectedPeer = remote is IPEndPoint endPoint ? DatagramAddress.FromIPEndPoint(endPoint) : default;
        }

        return _connectedPeer;
    }

    /// <summary>Where frames to one destination go: the next hop's Ethernet address, or through the UDP socket; looked up again at <see cref="RefreshAt"/>.</summary>
    private readonly record struct NextHop(MacAddress Mac, bool Framed, long RefreshAt);
}
