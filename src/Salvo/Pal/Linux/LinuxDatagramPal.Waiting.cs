using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// How the loops wait when the socket has nothing to give or no room to take. Each hot loop is one async method
/// generic over its strategy (a struct, so neither boxed nor called through an interface): the blocking calls
/// plug in <see cref="BlockOnDescriptor"/>, whose waits are done before they return, and the async calls
/// <see cref="AwaitReadiness"/>.
/// </summary>
internal sealed partial class LinuxDatagramPal
{
    private interface IWaitStrategy
    {
        /// <summary>Waits until a datagram or an error is queued; false when the deadline passed first.</summary>
        ValueTask<bool> ReadableAsync(LinuxDatagramPal pal);

        /// <summary>
        /// The send buffer is full at <paramref name="message"/>: either waits for room and returns that message
        /// to send again, or sends its datagrams another way and returns the next, with how many were accepted.
        /// </summary>
        ValueTask<(int Accepted, int Next)> SendBufferFullAsync(LinuxDatagramPal pal, SendBatch batch, LinuxSendVectors vectors, int message);
    }

    /// <summary>poll(2) on the caller's thread, in slices (see <see cref="PollDeadline"/>); sends have no deadline.</summary>
    private readonly struct BlockOnDescriptor(PollDeadline deadline) : IWaitStrategy
    {
        public ValueTask<bool> ReadableAsync(LinuxDatagramPal pal)
        {
            if (!deadline.TryNextSlice(out var slice))
            {
                return new(false);
            }

            pal.WaitForEvent(Constants.POLLIN, slice);
            return new(true);
        }

        public ValueTask<(int Accepted, int Next)> SendBufferFullAsync(LinuxDatagramPal pal, SendBatch batch, LinuxSendVectors vectors, int message)
        {
            pal.WaitForEvent(Constants.POLLOUT, PollDeadline.SliceMilliseconds);
            return new((0, message));
        }
    }

    /// <summary>Never waits: a message the full buffer cannot take is recorded as failed (WouldBlock) and skipped.</summary>
    private readonly struct SkipWhenFull : IWaitStrategy
    {
        public ValueTask<bool> ReadableAsync(LinuxDatagramPal pal) => new(false);

        public ValueTask<(int Accepted, int Next)> SendBufferFullAsync(LinuxDatagramPal pal, SendBatch batch, LinuxSendVectors vectors, int message)
        {
            var first = vectors.FirstEntry(message);
            for (var i = first; i < first + vectors.EntryCount(message); i++)
            {
                pal.Counters.OnSendError();
                batch.RecordFailure(i, SocketError.WouldBlock);
            }

            return new((0, message + 1));
        }
    }

    /// <summary>The runtime's epoll engine: a zero-byte peek to wait for datagrams, its own sends when the buffer is full.</summary>
    private readonly struct AwaitReadiness(CancellationToken cancellationToken) : IWaitStrategy
    {
        public ValueTask<bool> ReadableAsync(LinuxDatagramPal pal) => pal.WaitReadableAsync(cancellationToken);

        public ValueTask<(int Accepted, int Next)> SendBufferFullAsync(LinuxDatagramPal pal, SendBatch batch, LinuxSendVectors vectors, int message) =>
            pal.SendThroughRuntimeAsync(batch, vectors, message, cancellationToken);
    }

    /// <summary>Completes (true) once a datagram or an error is queued; true is the strategy's answer, there is no deadline.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> WaitReadableAsync(CancellationToken cancellationToken)
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

        return true;
    }

    private unsafe void WaitForEvent(short events, int timeoutMilliseconds)
    {
        if (IsDisposed)
        {
            throw Disposed();
        }

        try
        {
            using var lease = new DescriptorLease(_handle);
            // Safety: one pollfd on this frame's stack, count 1; the lease keeps the descriptor open while poll(2) waits.
            var poll = new PollFd { Fd = lease.Descriptor, Events = events };
            _ = Libc.Poll(&poll, 1, timeoutMilliseconds);
        }
        catch (ObjectDisposedException)
        {
            throw Disposed();
        }

        if (IsDisposed)
        {
            throw Disposed();
        }
    }
}
