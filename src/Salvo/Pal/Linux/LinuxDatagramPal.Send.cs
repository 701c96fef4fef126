using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Salvo.Diagnostics;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>The send path: batches of messages through sendmmsg, GSO runs, and the fallbacks.</summary>
internal sealed partial class LinuxDatagramPal
{
    private const int MaxGsoBytes = DatagramCapabilities.MaxGsoMessageBytes;

    private int _gsoEnabled;

    public bool GsoEnabled => Volatile.Read(ref _gsoEnabled) != 0;

    /// <summary>Test hook: the next GSO send is given a control message the kernel rejects.</summary>
    internal bool CorruptNextGsoSendForTesting { get; set; }

    /// <summary>
    /// Test hook: the next send fails with this errno without reaching the kernel, for the errors that loopback
    /// cannot produce: EIO comes from a device without checksum offload (udp_send_skb in net/ipv4/udp.c), and
    /// EAGAIN from a full send buffer, which loopback_xmit (drivers/net/loopback.c) empties during each send by
    /// orphaning the skb it transmits.
    /// </summary>
    internal Errno? FailNextSendForTesting { get; set; }

    public override ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken) =>
        SendCoreAsync(batch, new AwaitReadiness(cancellationToken));

    public override int Send(SendBatch batch) => Completed(SendCoreAsync(batch, new BlockOnDescriptor(PollDeadline.Never)));

    public override int TrySend(SendBatch batch) => Completed(SendCoreAsync(batch, default(SkipWhenFull)));

    /// <summary>
    /// SIOCOUTQ: the socket's sk_wmem_alloc, what <c>ss -m</c> shows as <c>t</c>. A datagram stays charged until its skb
    /// is freed, including while it waits in a neighbour's queue for ARP or NDP (net/core/neighbour.c, __neigh_event_send).
    /// </summary>
    public override unsafe int QueuedSendBytes
    {
        get
        {
            int bytes;
            try
            {
                // Safety: SIOCOUTQ writes one int (net/ipv4/udp.c, udp_ioctl) into the local the pointer names.
                return Libc.Ioctl(_handle, Constants.SIOCOUTQ, &bytes) == 0 ? bytes : -1;
            }
            catch (ObjectDisposedException)
            {
                throw Disposed();
            }
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> SendCoreAsync<TWait>(SendBatch batch, TWait wait)
        where TWait : struct, IWaitStrategy
    {
        var vectors = BeginSend(batch);
        var accepted = 0;
        var message = 0;
        while (vectors is not null && message < vectors.MessageCount)
        {
            var sent = TrySend(batch, vectors, message, out var errno);
            if (sent > 0)
            {
                accepted += sent;
                message = NextMessageAfter(vectors, message, sent);
            }
            else if (errno == Errno.EAGAIN)
            {
                (sent, message) = await wait.SendBufferFullAsync(this, batch, vectors, message).ConfigureAwait(false);
                accepted += sent;
            }
            else
            {
                message = HandleSendError(batch, vectors, message, errno);
            }
        }

        return accepted;
    }

    private static int NextMessageAfter(LinuxSendVectors vectors, int message, int datagramsSent)
    {
        while (datagramsSent > 0)
        {
            datagramsSent -= vectors.EntryCount(message++);
        }

        return message;
    }

    private LinuxSendVectors? BeginSend(SendBatch batch)
    {
        batch.ResetOutcome();
        if (batch.Count == 0)
        {
            return null;
        }

        var vectors = VectorsOf(batch);
        vectors.CorruptSegmentControlForTesting = CorruptNextGsoSendForTesting;
        vectors.Prepare(batch, 0, IsIPv6, GsoEnabled, MaxGsoBytes);
        return vectors;
    }

    /// <summary>Sends messages from <paramref name="message"/> on; returns the number of datagrams accepted.</summary>
    private unsafe int TrySend(SendBatch batch, LinuxSendVectors vectors, int message, out Errno errno)
    {
        if (FailNextSendForTesting is { } injected)
        {
            FailNextSendForTesting = null;
            errno = injected;
            return 0;
        }

        int sent;
        try
        {
            // Safety: message < MessageCount <= the batch's Capacity headers, all pinned and filled by Prepare for this batch;
            // sendmmsg (or the ring's linked sendmsg entries, waited for before Send returns) reads them only during the call.
            var headers = vectors.Headers + message;
            var count = (uint)(vectors.MessageCount - message);
            if (_sendsThroughRing && IoUringSendRing.ForThisThread is { } ring)
            {
                sent = ring.Send(_handle, headers, count, out errno);
            }
            else
            {
                sent = Libc.SendMmsg(_handle, headers, count, Constants.MSG_DONTWAIT);
                errno = sent < 0 ? Libc.LastErrno : Errno.None;
            }
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        if (sent <= 0)
        {
            return 0;
        }

        var entries = batch.Entries;
        var datagrams = 0;
        long bytes = 0;
        for (var m = message; m < message + sent; m++)
        {
            var first = vectors.FirstEntry(m);
            for (var i = first; i < first + vectors.EntryCount(m); i++)
            {
                bytes += entries[i].Length;
            }

            datagrams += vectors.EntryCount(m);
        }

        Counters.OnSent(datagrams, bytes);
        return datagrams;
    }

    /// <summary>Deals with a failed send of <paramref name="message"/>; returns the next message to send.</summary>
    private int HandleSendError(SendBatch batch, LinuxSendVectors vectors, int message, Errno errno)
    {
        switch (errno)
        {
            case Errno.EINTR:
                return message;
            case Errno.ECONNREFUSED:
                // An ICMP error from an earlier datagram, reported (and cleared) instead of sending this
                // one (sock_error() in sock_alloc_send_pskb): count it and send this message again.
                Counters.OnIcmpError();
                return message;
            case Errno.EBADF or Errno.ENOTSOCK:
                throw Disposed();
            case Errno.EIO or Errno.EINVAL when vectors.IsSegmented(message):
                // The kernel or the device cannot segment (quinn-udp sees EIO from some NICs): switch GSO
                // off for this socket and rebuild the rest of the batch without it.
                SwitchGsoOff(errno);
                vectors.CorruptSegmentControlForTesting = false;
                vectors.Prepare(batch, vectors.FirstEntry(message), IsIPv6, gso: false, MaxGsoBytes);
                return 0;
            case not Errno.EAGAIN when vectors.IsSegmented(message):
                // A segmented message fails as a whole (EMSGSIZE when a segment exceeds the path MTU):
                // send the rest of this batch one datagram per message, so each gets its own verdict.
                vectors.Prepare(batch, vectors.FirstEntry(message), IsIPv6, gso: false, MaxGsoBytes);
                return 0;
            default:
                // These datagrams cannot go (too large, unreachable, firewall, bad address): skip them,
                // count them, and keep the rest of the batch moving.
                var first = vectors.FirstEntry(message);
                for (var i = first; i < first + vectors.EntryCount(message); i++)
                {
                    Counters.OnSendError();
                    batch.RecordFailure(i, errno.ToSocketError());
                }

                return message + 1;
        }
    }

    private void SwitchGsoOff(Errno errno)
    {
        CorruptNextGsoSendForTesting = false;
        if (Interlocked.Exchange(ref _gsoEnabled, 0) == 1)
        {
            Counters.OnGsoFallback();
            SocketLog.GsoSwitchedOff(Logger, Socket.LocalEndPoint?.ToString() ?? "?", errno.ToString());
        }
    }

    /// <summary>
    /// The send buffer is full: the runtime waits for room and sends <paramref name="message"/>'s datagrams one by
    /// one; the next message goes back to batches.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(int Accepted, int Next)> SendThroughRuntimeAsync(
        SendBatch batch, LinuxSendVectors vectors, int message, CancellationToken cancellationToken)
    {
        var accepted = 0;
        var first = vectors.FirstEntry(message);
        for (var index = first; index < first + vectors.EntryCount(message); index++)
        {
            var payload = batch.GetMemory(index);
            var destination = batch.GetDestination(index);
            if (!CanReach(destination))
            {
                Counters.OnSendError();
                batch.RecordFailure(index, SocketError.AddressFamilyNotSupported);
                continue;
            }

            try
            {
                if (destination.HasValue)
                {
                    var address = WriteDestination(vectors.DestinationHolder ??= new SocketAddress(Socket.AddressFamily), destination);
                    await Socket.SendToAsync(payload, SocketFlags.None, address, cancellationToken).ConfigureAwait(false);
                }
                else
                {
                    await Socket.SendAsync(payload, SocketFlags.None, cancellationToken).ConfigureAwait(false);
                }

                Counters.OnSent(1, payload.Length);
                accepted++;
            }
            catch (SocketException e) when (e.SocketErrorCode != SocketError.OperationAborted && !IsDisposed)
            {
                Counters.OnSendError();
                batch.RecordFailure(index, e.SocketErrorCode);
            }
            catch (Exception e) when (e is ObjectDisposedException or SocketException)
            {
                throw Disposed();
            }
        }

        return (accepted, message + 1);
    }
}
