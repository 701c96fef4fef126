using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// Any OS: System.Net.Sockets with the .NET 8 <see cref="SocketAddress"/> overloads, which allocate no
/// endpoint per datagram. One datagram per system call.
/// </summary>
internal sealed class PortableDatagramPal : DatagramPal
{
    // Windows: SIO_UDP_CONNRESET. Off, an ICMP port-unreachable no longer fails the next receive with
    // WSAECONNRESET (it would end most receive loops).
    private const int SioUdpConnReset = unchecked((int)0x9800000C);

    /// <summary>What <see cref="ISocketCalls.ReceiveFromAsync"/> returns when the deadline passed before a datagram came.</summary>
    private const int TimedOut = -1;

    private ReceiveBatch? _single;

    public PortableDatagramPal(Socket socket, SocketCounters counters, DatagramSocketOptions options)
        : base(socket, counters, options)
    {
        // One datagram per call through the runtime's ReceiveFrom, which carries no control messages.
        RefuseUnsupported(options.ReceivePacketInformation, nameof(options.ReceivePacketInformation), "each datagram's destination address");
        RefuseUnsupported(options.ReceiveEcn, nameof(options.ReceiveEcn), "each datagram's ECN bits");
        if (OperatingSystem.IsWindows())
        {
            socket.IOControl(SioUdpConnReset, [0, 0, 0, 0], null);
        }
    }

    public override DatagramBackend Backend => DatagramBackend.Portable;

    public override bool CanSpinReceive => false;

    public override bool BlockingReceiveWakesOnClose => false;

    public override DatagramCapabilities Capabilities => new(BatchedIo: false, Gso: false, Gro: false, MaxGsoSegments: 0);

    public override ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken) =>
        ReceiveCoreAsync(batch, new AsyncCalls(cancellationToken));

    public override int Receive(ReceiveBatch batch, int timeoutMilliseconds) =>
        Completed(ReceiveCoreAsync(batch, new BlockingCalls(new PollDeadline(timeoutMilliseconds))));

    public override ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken) =>
        SendCoreAsync(batch, new AsyncCalls(cancellationToken));

    public override int Send(SendBatch batch) => Completed(SendCoreAsync(batch, new BlockingCalls(PollDeadline.Never)));

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReceiveCoreAsync<TCalls>(ReceiveBatch batch, TCalls calls)
        where TCalls : struct, ISocketCalls
    {
        var address = HolderOf(batch);
        // One byte more than BufferSize: a datagram that fills it was longer than BufferSize.
        var buffer = batch.Buffer.AsMemory(0, batch.BufferSize + 1);
        while (true)
        {
            int received;
            try
            {
                received = await calls.ReceiveFromAsync(Socket, buffer, address).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                if (Classify(e) == ReceiveFailure.Survivable)
                {
                    continue;
                }

                received = buffer.Length;
            }

            return received == TimedOut ? 0 : Complete(batch, address, received);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> SendCoreAsync<TCalls>(SendBatch batch, TCalls calls)
        where TCalls : struct, ISocketCalls
    {
        batch.ResetOutcome();
        var accepted = 0;
        for (var i = 0; i < batch.Count; i++)
        {
            var payload = batch.GetMemory(i);
            var destination = batch.GetDestination(i);
            if (!CanReach(destination))
            {
                RecordSendFailure(batch, i, new SocketException((int)SocketError.AddressFamilyNotSupported));
                continue;
            }

            try
            {
                await calls.SendToAsync(Socket, payload, destination.HasValue ? Destination(batch, destination) : null).ConfigureAwait(false);
                Counters.OnSent(1, payload.Length);
                accepted++;
            }
            catch (Exception e) when (IsDatagramFailure(e))
            {
                RecordSendFailure(batch, i, (SocketException)e);
            }
        }

        return accepted;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken)
    {
        // The runtime cuts a datagram to the buffer without saying so on Unix, so receive through a
        // full-size pinned buffer (one per socket, taken and given back) and copy: one copy buys an exact
        // truncation flag.
        var batch = Interlocked.Exchange(ref _single, null) ?? new ReceiveBatch(1);
        try
        {
            await ReceiveAsync(batch, cancellationToken).ConfigureAwait(false);
            var datagram = batch[0];
            var length = Math.Min(datagram.Length, buffer.Length);
            datagram.Payload[..length].CopyTo(buffer.Span);
            var isTruncated = datagram.IsTruncated || datagram.Length > buffer.Length;
            if (isTruncated && !datagram.IsTruncated)
            {
                Counters.OnTruncatedByCaller();
            }

            return new ReceiveResult(length, datagram.Source, isTruncated);
        }
        finally
        {
            _single = batch;
        }
    }

    protected override void Close() => Socket.Dispose();

    private static void RefuseUnsupported(bool requested, string option, string what)
    {
        if (requested)
        {
            throw new NotSupportedException(
                $"{option}: the Portable backend cannot report {what}; use Backend Auto or LinuxBatched on Linux, or leave {option} off.");
        }
    }

    private int Complete(ReceiveBatch batch, SocketAddress address, int received)
    {
        var isTruncated = received > batch.BufferSize;
        ref var entry = ref batch.Entries[0];
        entry.Offset = 0;
        entry.Length = isTruncated ? batch.BufferSize : received;
        entry.Address = DatagramAddress.FromSocketAddress(address);
        entry.IsTruncated = isTruncated;
        batch.SetCount(1);
        Counters.OnReceived(1, entry.Length, isTruncated ? 1 : 0);
        return 1;
    }

    private SocketAddress Destination(SendBatch batch, DatagramAddress destination)
    {
        if (batch.BackendState is not SocketAddress holder)
        {
            batch.BackendState = holder = new SocketAddress(Socket.AddressFamily);
        }

        return WriteDestination(holder, destination);
    }

    private void RecordSendFailure(SendBatch batch, int index, SocketException e)
    {
        if (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset)
        {
            Counters.OnIcmpError();
        }

        Counters.OnSendError();
        batch.RecordFailure(index, e.SocketErrorCode);
    }

    private bool IsDatagramFailure(Exception e) =>
        e is SocketException socketException && socketException.SocketErrorCode != SocketError.OperationAborted && !IsDisposed;

    /// <summary>Truncated or survivable (counted); anything else is rethrown, as disposal when the socket is closed.</summary>
    private ReceiveFailure Classify(Exception e)
    {
        if (IsDisposed || e is ObjectDisposedException
            || e is SocketException { SocketErrorCode: SocketError.OperationAborted or SocketError.Interrupted })
        {
            throw Disposed();
        }

        switch (((SocketException)e).SocketErrorCode)
        {
            case SocketError.MessageSize:
                return ReceiveFailure.Truncated;
            case SocketError.ConnectionReset or SocketError.ConnectionRefused or SocketError.HostUnreachable or SocketError.NetworkUnreachable:
                Counters.OnIcmpError();
                return ReceiveFailure.Survivable;
            default:
                ExceptionDispatchInfo.Throw(e);
                return default;
        }
    }

    private enum ReceiveFailure
    {
        Truncated,
        Survivable,
    }

    /// <summary>The batch's reusable source-address holder, made on first use.</summary>
    private SocketAddress HolderOf(ReceiveBatch batch)
    {
        if (batch.BackendState is not SocketAddress holder)
        {
            batch.BackendState = holder = new SocketAddress(Socket.AddressFamily);
        }

        return holder;
    }

    /// <summary>
    /// Which of the runtime's calls the loops make, each loop one async method generic over them (a struct, so
    /// neither boxed nor called through an interface): <see cref="BlockingCalls"/> for the blocking calls, done
    /// before they return, and <see cref="AsyncCalls"/>.
    /// </summary>
    private interface ISocketCalls
    {
        /// <summary>Receives one datagram into <paramref name="buffer"/>; its length, or <see cref="TimedOut"/>.</summary>
        ValueTask<int> ReceiveFromAsync(Socket socket, Memory<byte> buffer, SocketAddress source);

        /// <summary>Sends one datagram, to the connected peer when <paramref name="destination"/> is null.</summary>
        ValueTask<int> SendToAsync(Socket socket, ReadOnlyMemory<byte> payload, SocketAddress? destination);
    }

    /// <summary>
    /// The runtime's blocking calls on the caller's thread. A receive polls in slices (see <see cref="PollDeadline"/>)
    /// before it reads, so a disposal is seen within one slice without counting on the close to wake the thread.
    /// </summary>
    private readonly struct BlockingCalls(PollDeadline deadline) : ISocketCalls
    {
        public ValueTask<int> ReceiveFromAsync(Socket socket, Memory<byte> buffer, SocketAddress source)
        {
            while (deadline.TryNextSlice(out var slice))
            {
                if (socket.Poll(slice * 1000, SelectMode.SelectRead))
                {
                    return new(socket.ReceiveFrom(buffer.Span, SocketFlags.None, source));
                }

                ThrowPendingError(socket);
            }

            return new(TimedOut);
        }

        /// <summary>
        /// A pending socket error (an ICMP port unreachable on a connected socket) wakes poll with POLLERR, which
        /// SelectRead does not count as readable: left there, every later poll returns at once and the wait spins
        /// until its deadline without reporting it. SO_ERROR reads and clears it (sock_getsockopt in
        /// net/core/sock.c) without blocking; thrown, it is counted like one a receive reports.
        /// </summary>
        private static void ThrowPendingError(Socket socket)
        {
            if (socket.Poll(0, SelectMode.SelectError)
                && socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.Error) is int error and not 0)
            {
                throw new SocketException(error);
            }
        }

        public ValueTask<int> SendToAsync(Socket socket, ReadOnlyMemory<byte> payload, SocketAddress? destination) =>
            new(destination is null ? socket.Send(payload.Span, SocketFlags.None) : socket.SendTo(payload.Span, SocketFlags.None, destination));
    }

    private readonly struct AsyncCalls(CancellationToken cancellationToken) : ISocketCalls
    {
        public ValueTask<int> ReceiveFromAsync(Socket socket, Memory<byte> buffer, SocketAddress source) =>
            socket.ReceiveFromAsync(buffer, SocketFlags.None, source, cancellationToken);

        public ValueTask<int> SendToAsync(Socket socket, ReadOnlyMemory<byte> payload, SocketAddress? destination) =>
            destination is null
                ? socket.SendAsync(payload, SocketFlags.None, cancellationToken)
                : socket.SendToAsync(payload, SocketFlags.None, destination, cancellationToken);
    }
}
