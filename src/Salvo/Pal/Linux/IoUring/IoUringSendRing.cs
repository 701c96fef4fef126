using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: the headers the entries point at are the caller's pinned send vectors, read by the kernel only until the
// completions this call waits for; the lease keeps the socket's descriptor open for the same span.
/// <summary>
/// The sending thread's own small ring: a batch of messages becomes linked IORING_OP_SENDMSG entries submitted and
/// waited for in one io_uring_enter, with sendmmsg's result (how many went before the first failure, or that failure's
/// errno). One ring per thread that sends, not per socket: it is set up with SINGLE_ISSUER and DEFER_TASKRUN where the
/// kernel has them (6.1), so completions are reaped by the thread that submitted them without a wake-up.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class IoUringSendRing
{
    /// <summary>Messages per enter: the kernel's UIO_MAXIOV caps sendmmsg at 1,024; a quarter keeps the ring small.</summary>
    public const int Entries = 256;

    [ThreadStatic]
    private static IoUringSendRing? t_ring;

    [ThreadStatic]
    private static bool t_refused;

    private readonly IoUringRing _ring;
    private readonly int[] _results = new int[Entries];
    private readonly IoUringCqe[] _completions = new IoUringCqe[Entries];

    private IoUringSendRing(IoUringRing ring) => _ring = ring;

    /// <summary>This thread's ring; null when the kernel refused one (the caller sends with sendmmsg instead).</summary>
    public static IoUringSendRing? ForThisThread
    {
        get
        {
            if (t_ring is not null || t_refused)
            {
                return t_ring;
            }

            ReadOnlySpan<uint> flagSets =
            [
                IoUringConstants.IORING_SETUP_SINGLE_ISSUER | IoUringConstants.IORING_SETUP_DEFER_TASKRUN | IoUringConstants.IORING_SETUP_SUBMIT_ALL,
                IoUringConstants.IORING_SETUP_SUBMIT_ALL,
                0,
            ];
            var ring = IoUringRing.TryCreate(Entries, 0, flagSets, out _);
            t_refused = ring is null;
            return t_ring = ring is null ? null : new IoUringSendRing(ring);
        }
    }

    /// <summary>Whether this thread has set up its ring (it does at its first send through one).</summary>
    internal static bool ExistsOnThisThread => t_ring is not null;

    /// <summary>Sends up to <paramref name="count"/> messages; returns sendmmsg's result and errno.</summary>
    /// <exception cref="ObjectDisposedException">The socket was closed.</exception>
    public int Send(SafeHandle socket, MMsgHdr* messages, uint count, out Errno errno)
    {
        // Every earlier call waited for all it submitted, so the whole ring is free; the bound keeps that an invariant.
        var n = (int)Math.Min(count, _ring.FreeSubmissionSlots);
        if (n == 0)
        {
            throw new InvalidOperationException("The thread's send ring has no free entry: an earlier send was cut short.");
        }

        using (var lease = new DescriptorLease(socket))
        {
            for (var i = 0; i < n; i++)
            {
                var sqe = _ring.TryGetSqe();
                sqe->Opcode = IoUringConstants.IORING_OP_SENDMSG;
                sqe->Fd = lease.Descriptor;
                sqe->Address = (ulong)&messages[i].Header;
                sqe->OpFlags = Constants.MSG_DONTWAIT;
                // Linked: a message that fails cancels the rest, as sendmmsg stops at the first failure.
                sqe->Flags = i < n - 1 ? IoUringConstants.IOSQE_IO_LINK : (byte)0;
                sqe->UserData = (ulong)i;
            }

            var reaped = 0;
            var wait = (uint)n;
            while (reaped < n)
            {
                var entered = _ring.Enter(wait);
                if (entered is not (Errno.None or Errno.EINTR or Errno.EAGAIN or Errno.EBUSY))
                {
                    throw new InvalidOperationException($"io_uring_enter failed with {entered} while sending.");
                }

                var got = _ring.Reap(_completions);
                for (var i = 0; i < got; i++)
                {
                    _results[(int)_completions[i].UserData] = _completions[i].Result;
                }

                reaped += got;
                wait = (uint)(n - reaped);
            }
        }

        var sent = 0;
        while (sent < n && _results[sent] >= 0)
        {
            sent++;
        }

        // n is at least 1 (checked above): nothing sent means the first message failed.
        errno = sent == 0 ? (Errno)(-_results[0]) : Errno.None;
        return sent == 0 ? -1 : sent;
    }
}
