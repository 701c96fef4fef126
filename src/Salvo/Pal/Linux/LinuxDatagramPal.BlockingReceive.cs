using System.Diagnostics;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// The blocking receive: one recvmmsg(MSG_WAITFORONE) that takes what is queued and, when nothing is, sleeps in the
/// kernel until the first datagram arrives, the wait bounded by SO_RCVTIMEO; or, while each wait sleeps and wakes to
/// one message, one recvmsg(2) that does the same for a single message. Waiting in poll(2) instead cost two more
/// calls per wake-up (a recvmmsg that found nothing, then poll, then the recvmmsg that takes the datagram): at one
/// request in flight, half of each end's system calls per request (docs/benchmarks.md, "One request in flight").
/// </summary>
internal sealed partial class LinuxDatagramPal
{
    private const int DescriptorUnknown = 0;
    private const int DescriptorBlocks = 1;
    private const int DescriptorNonBlocking = 2; // or refuses SO_RCVTIMEO: either way, the poll(2) path

    // The kernel honours MSG_WAITFORONE's wait only on a descriptor without O_NONBLOCK (____sys_recvmsg in
    // net/socket.c turns O_NONBLOCK into MSG_DONTWAIT). The runtime sets O_NONBLOCK for good at the socket's first
    // asynchronous operation, so this is read once and again whenever a wait ends without a datagram.
    private int _descriptorMode;

    // The SO_RCVTIMEO last set, in milliseconds (0: none, the kernel's "wait forever"); set again only when a wait
    // asks for another, so a steady caller pays no setsockopt per receive. Written only with the kernel's value, under
    // _receiveTimeoutGate: two threads that set different timeouts at once could otherwise leave it naming one and
    // the kernel holding the other, and a lone caller whose timeout it names would then wait the other's slice on
    // every receive, never setting its own again.
    private int _receiveTimeoutMilliseconds;
    private readonly Lock _receiveTimeoutGate = new();

    // A wait that lasts this long slept in the kernel: the socket was empty when it began. A call that finds a datagram
    // queued returns in about 1 us here (strace: recvfrom 3-4 us traced); a wake-up after a sleep takes longer (at one
    // request in flight with both ends on one core, the other end's turn: about 10 us).
    private static readonly long s_sleptTicks = Stopwatch.Frequency * 5 / 1_000_000;

    // Whether the next wait should take one message with recvmsg(2) rather than a batch with recvmmsg(2): set after a
    // wait that slept and then took one message, cleared after a wait that found the socket not empty or took more.
    // recvmmsg costs more than recvmsg for one message (after the first it copies in and tries the next header and
    // finds the queue empty): C's request/response pair on one core served 51,809 requests/s with
    // recvmmsg(MSG_WAITFORONE) and 55,918 with recvmsg (docs/benchmarks.md, "Request/response at one in flight"). A
    // socket whose waits find datagrams queued is back on recvmmsg at its next wait, so a stream keeps its batches.
    // Shared by the threads receiving on the socket: a race only picks the other call for one wait.
    private bool _expectOne;

    /// <summary>Whether the next blocking wait takes one message with recvmsg; tests read it.</summary>
    internal bool ExpectsOneMessage => Volatile.Read(ref _expectOne);

    /// <summary>The SO_RCVTIMEO this socket holds as set, in milliseconds; tests compare it with the kernel's.</summary>
    internal int ReceiveTimeoutMilliseconds => Volatile.Read(ref _receiveTimeoutMilliseconds);

    public override int Receive(ReceiveBatch batch, int timeoutMilliseconds) =>
        timeoutMilliseconds != 0 && DescriptorIsBlocking(recheck: false)
            ? ReceiveInKernel(batch, timeoutMilliseconds)
            : ReceiveAfterPoll(batch, new PollDeadline(timeoutMilliseconds));

    private int ReceiveAfterPoll(ReceiveBatch batch, PollDeadline deadline) =>
        Completed(ReceiveCoreAsync(batch, new BlockOnDescriptor(deadline)));

    private int ReceiveInKernel(ReceiveBatch batch, int timeoutMilliseconds)
    {
        var deadline = new PollDeadline(timeoutMilliseconds);

        // The first wait is the caller's whole timeout (up to a slice), read off the argument rather than the clock, so a
        // caller that always asks for the same timeout finds SO_RCVTIMEO already set and pays no setsockopt.
        var slice = timeoutMilliseconds < 0 ? PollDeadline.SliceMilliseconds : Math.Min(timeoutMilliseconds, PollDeadline.SliceMilliseconds);

        // A blocking recvmmsg(MSG_WAITFORONE) takes what is already queued without sleeping (it sleeps only for the
        // first datagram), so with the timeout already in place it is the only call: a non-blocking try first would
        // add one recvmmsg that finds nothing to every wake-up, a third of each end's calls at one request in flight
        // (docs/benchmarks.md, "One request in flight"). Only when the timeout has to change does a try come first,
        // so a caller whose timeouts vary pays the setsockopt only when the socket is empty, as before.
        if (Volatile.Read(ref _receiveTimeoutMilliseconds) != slice)
        {
            var ready = TryReceive(batch, Constants.MSG_DONTWAIT, out var errno);
            if (ready > 0)
            {
                return ready;
            }

            if (errno != Errno.EAGAIN)
            {
                HandleReceiveError(errno);
            }
        }

        while (true)
        {
            if (!TrySetReceiveTimeout(slice))
            {
                return ReceiveAfterPoll(batch, deadline);
            }

            var oneMessage = Volatile.Read(ref _expectOne);
            var started = Stopwatch.GetTimestamp();
            var count = TryReceive(batch, oneMessage ? 0 : Constants.MSG_WAITFORONE, oneMessage, out var errno, out var messages);
            if (count > 0)
            {
                Volatile.Write(ref _expectOne, messages == 1 && Stopwatch.GetTimestamp() - started >= s_sleptTicks);
                return count;
            }

            if (errno != Errno.EAGAIN)
            {
                HandleReceiveError(errno);
            }
            else if (!DescriptorIsBlocking(recheck: true))
            {
                return ReceiveAfterPoll(batch, deadline);
            }

            if (!deadline.TryNextSlice(out slice))
            {
                return 0;
            }
        }
    }

    private bool DescriptorIsBlocking(bool recheck)
    {
        var mode = Volatile.Read(ref _descriptorMode);
        if (mode != DescriptorUnknown && (mode == DescriptorNonBlocking || !recheck))
        {
            return mode == DescriptorBlocks;
        }

        int flags;
        try
        {
            flags = Libc.Fcntl(_handle, Constants.F_GETFL);
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        // Once non-blocking, the runtime never clears O_NONBLOCK again, so that answer is kept.
        mode = flags >= 0 && (flags & Constants.O_NONBLOCK) == 0 ? DescriptorBlocks : DescriptorNonBlocking;
        Volatile.Write(ref _descriptorMode, mode);
        return mode == DescriptorBlocks;
    }

    /// <summary>
    /// Bounds the next wait; false when the kernel refused the timeout. Threads that share the socket with different timeouts may each wait once for the other's
    /// (at most one <see cref="PollDeadline.SliceMilliseconds"/> slice) before their own deadline is seen.
    /// </summary>
    private unsafe bool TrySetReceiveTimeout(int milliseconds)
    {
        if (Volatile.Read(ref _receiveTimeoutMilliseconds) == milliseconds)
        {
            return true;
        }

        var value = new TimeVal { Seconds = milliseconds / 1000, Microseconds = milliseconds % 1000 * 1000L };
        lock (_receiveTimeoutGate)
        {
            try
            {
                // Safety: the timeval is a local passed by address with its own size to one synchronous setsockopt.
                if (Libc.SetSockOpt(_handle, Constants.SOL_SOCKET, Constants.SO_RCVTIMEO, &value, (uint)sizeof(TimeVal)) != 0)
                {
                    // Without the timeout the wait would have no deadline: this socket waits in poll(2) from now on.
                    Volatile.Write(ref _descriptorMode, DescriptorNonBlocking);
                    return false;
                }
            }
            catch (ObjectDisposedException)
            {
                throw Disposed();
            }

            Volatile.Write(ref _receiveTimeoutMilliseconds, milliseconds);
        }

        return true;
    }
}
