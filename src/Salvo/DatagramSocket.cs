using System.Net;
using System.Net.Sockets;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo;

/// <summary>
/// A UDP socket that moves datagrams in batches: on Linux one recvmmsg or sendmmsg system call carries
/// up to a whole <see cref="ReceiveBatch"/> or <see cref="SendBatch"/>; elsewhere a portable backend
/// moves one datagram per call. In steady state nothing on the receive or send path allocates.
/// </summary>
/// <remarks>
/// <para>Receiving and sending may run at the same time from different threads. Use one batch per
/// concurrent operation.</para>
/// <para>Errors a datagram service must survive do not end the receive loop: a datagram longer than its
/// buffer is delivered cut and marked truncated; an ICMP error (a peer's closed port) is counted in
/// <see cref="GetStatistics"/> and receiving goes on; a datagram the kernel refuses to send is counted and
/// skipped while the rest of its batch goes out.</para>
/// <para><see cref="Dispose"/> ends pending receives and sends at once: they throw
/// <see cref="ObjectDisposedException"/>.</para>
/// </remarks>
public sealed partial class DatagramSocket : IDisposable
{
    private readonly DatagramPal _pal;
    private readonly SocketCounters _counters = new();
    private readonly IKernelDropCounter? _kernelDrops;
    private SocketAddress? _cachedSendAddress;

    /// <summary>Opens and binds a socket.</summary>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    /// <exception cref="NotSupportedException">
    /// The backend or the kernel cannot honour an option that was asked for (<see cref="DatagramSocketOptions.DontFragment"/>,
    /// <see cref="DatagramSocketOptions.ReceivePacketInformation"/>, <see cref="DatagramSocketOptions.ReceiveEcn"/>); the
    /// message names it. Offloads that a kernel lacks are reported in <see cref="Capabilities"/> instead.
    /// </exception>
    /// <exception cref="SocketException">The address is in use or cannot be bound; the message names it.</exception>
    public DatagramSocket(DatagramSocketOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var socket = new Socket(options.LocalEndPoint.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        try
        {
            SocketSetup.Configure(socket, options);
            NamedBind.Bind(socket, options.LocalEndPoint);
            _pal = Platform.Current.OpenDatagram(socket, options, _counters);
            // A backend that holds its own queues (AF_XDP's rings) counts their drops itself.
            _kernelDrops = _pal as IKernelDropCounter ?? Platform.Current.OpenKernelDropCounter(socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        LocalEndPoint = (IPEndPoint)socket.LocalEndPoint!;
        LocalAddress = DatagramAddress.FromIPEndPoint(LocalEndPoint);
    }

    /// <summary>Opens a socket bound to <paramref name="localEndPoint"/> with default options.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="localEndPoint"/> is null.</exception>
    /// <exception cref="SocketException">The address is in use or cannot be bound; the message names it.</exception>
    public static DatagramSocket Bind(IPEndPoint localEndPoint, DatagramBackend backend = DatagramBackend.Auto)
    {
        ArgumentNullException.ThrowIfNull(localEndPoint);
        return new DatagramSocket(new DatagramSocketOptions { LocalEndPoint = localEndPoint, Backend = backend });
    }

    /// <summary>The backend moving this socket's datagrams.</summary>
    public DatagramBackend Backend => _pal.Backend;

    /// <summary>What this socket does: batched I/O, GSO, GRO, given the kernel (probed once per process) and the options.</summary>
    public DatagramCapabilities Capabilities => _pal.Capabilities;

    /// <inheritdoc cref="DatagramPal.CanSpinReceive"/>
    internal bool CanSpinReceive => _pal.CanSpinReceive;

    /// <inheritdoc cref="DatagramPal.BlockingReceiveWakesOnClose"/>
    internal bool BlockingReceiveWakesOnClose => _pal.BlockingReceiveWakesOnClose;

    /// <inheritdoc cref="DatagramPal.ReceiveOnThisThreadOnly"/>
    internal void ReceiveOnThisThreadOnly() => _pal.ReceiveOnThisThreadOnly();

    /// <inheritdoc cref="DatagramPal.EndReceivingOnThisThread"/>
    internal void EndReceivingOnThisThread() => _pal.EndReceivingOnThisThread();

    /// <inheritdoc cref="DatagramPal.IsReceivingOnThisThreadsRing"/>
    internal bool IsReceivingOnThisThreadsRing => _pal.IsReceivingOnThisThreadsRing;

    /// <summary>
    /// Promises that the calling thread makes every receive on this socket from now on (a dedicated receive loop of blocking
    /// <see cref="Receive(ReceiveBatch, TimeSpan)"/> calls), so that on <see cref="DatagramBackend.IoUring"/> its receives
    /// run on the thread's own ring: the kernel's receive work happens in this thread's wait and nothing else is woken per
    /// batch, where a shared ring's thread wakes the receiver a second time. Claim before the first receive; on other
    /// backends the claim changes nothing. Dispose the claim on the same thread when the loop ends.
    /// </summary>
    /// <returns>The claim; <see cref="ReceiveThreadClaim.OwnRing"/> says whether the socket now receives on this thread's ring.</returns>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    /// <remarks>The promise is not checked: until the claim is disposed, a receive from another thread may read buffers the claiming thread frees.</remarks>
    public ReceiveThreadClaim ClaimReceivesForThisThread()
    {
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return new ReceiveThreadClaim(this);
    }

    /// <summary>The address family of the socket (IPv6 also carries IPv4 when dual-mode).</summary>
    public AddressFamily AddressFamily => _pal.Socket.AddressFamily;

    /// <summary>The bound address and port (the actual port when 0 was asked for).</summary>
    public IPEndPoint LocalEndPoint { get; }

    /// <summary>The bound address and port as a value.</summary>
    public DatagramAddress LocalAddress { get; }

    /// <summary>The connected peer, or <see cref="DatagramAddress.None"/>.</summary>
    public DatagramAddress RemoteAddress { get; private set; }

    /// <summary>
    /// The receive buffer the kernel granted, in bytes, as it reports it: what queued datagrams may take, their
    /// bookkeeping included. Linux grants twice the size asked for (<see cref="DatagramSocketOptions.ReceiveBufferSize"/>),
    /// capped at twice net.core.rmem_max: 8 MiB for the default 4 MiB where rmem_max allows it, 416 KiB where rmem_max is
    /// at its usual default of 208 KiB. A datagram of 1,200 bytes takes about 2.3 KiB of it on loopback.
    /// </summary>
    public int ReceiveBufferSize => _pal.Socket.ReceiveBufferSize;

    /// <summary>The send buffer the kernel granted, in bytes (Linux: twice the size asked for, capped at twice net.core.wmem_max).</summary>
    public int SendBufferSize => _pal.Socket.SendBufferSize;

    /// <summary>
    /// The underlying socket, for options Salvo does not cover. Do not receive or send through it.
    /// </summary>
    public Socket Socket => _pal.Socket;

    /// <summary>
    /// Connects to a peer: sends without a destination go to it, only its datagrams are received, and
    /// ICMP errors about it are reported (counted in <see cref="DatagramSocketStatistics.IcmpErrors"/>).
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="remote"/> is <see cref="DatagramAddress.None"/>.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public void Connect(DatagramAddress remote)
    {
        if (!remote.HasValue)
        {
            throw new ArgumentException("A connect needs an address.", nameof(remote));
        }

        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        var target = AddressFamily == AddressFamily.InterNetworkV6 ? remote.MapToIPv6() : remote;
        _pal.Socket.Connect(target.ToIPEndPoint());
        RemoteAddress = remote;
    }

    /// <summary>Connects to a peer; see <see cref="Connect(DatagramAddress)"/>.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="remote"/> is null.</exception>
    public void Connect(IPEndPoint remote)
    {
        ArgumentNullException.ThrowIfNull(remote);
        Connect(DatagramAddress.FromIPEndPoint(remote));
    }

    /// <summary>
    /// Waits for at least one datagram and fills <paramref name="batch"/> with as many as are queued, up to
    /// its capacity. Returns the number received (at least 1).
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="batch"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed, before or during the wait.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.ReceiveAsync(batch, cancellationToken);
    }

    /// <summary>
    /// Blocks the calling thread until datagrams arrive or <paramref name="timeout"/> passes, then fills
    /// <paramref name="batch"/>. Returns the number received, or 0 on timeout. For a dedicated receive thread.
    /// </summary>
    /// <param name="batch">The batch to fill.</param>
    /// <param name="timeout">How long to wait; <see cref="Timeout.InfiniteTimeSpan"/> waits until data or disposal.</param>
    /// <exception cref="ArgumentNullException"><paramref name="batch"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative (other than infinite).</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed, before or during the wait.</exception>
    public int Receive(ReceiveBatch batch, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var milliseconds = PollTimeout.ToMilliseconds(timeout);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.Receive(batch, milliseconds);
    }

    /// <summary>
    /// Sends every datagram of <paramref name="batch"/> (in as few system calls as the backend allows) and
    /// returns how many the kernel accepted. A datagram it refuses is counted, recorded in
    /// <see cref="SendBatch.FailedCount"/> and <see cref="SendBatch.FirstError"/>, and skipped.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="batch"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.SendAsync(batch, cancellationToken);
    }

    /// <summary>Blocking form of <see cref="SendAsync(SendBatch, CancellationToken)"/>, for a dedicated thread.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="batch"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public int Send(SendBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.Send(batch);
    }

    /// <summary>
    /// Sends what the socket's send buffer takes now, without waiting for room, and returns how many datagrams the kernel
    /// accepted. A datagram it had no room for is not sent: it is counted as a send error and recorded in
    /// <see cref="SendBatch.FailedCount"/> with <see cref="SocketError.WouldBlock"/>. For messages that must never hold
    /// up the caller (control traffic beside a data stream). A backend without a non-blocking send waits as
    /// <see cref="Send(SendBatch)"/> does.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="batch"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public int TrySend(SendBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.TrySend(batch);
    }

    /// <summary>
    /// Bytes of earlier sends the kernel still charges against <see cref="SendBufferSize"/>: datagrams queued for the
    /// device, or waiting for the next hop's address to resolve. -1 where the backend cannot tell (only Linux can).
    /// </summary>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public int QueuedSendBytes
    {
        get
        {
            ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
            return _pal.QueuedSendBytes;
        }
    }

    /// <summary>Receives one datagram into <paramref name="buffer"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="buffer"/> is empty.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        if (buffer.IsEmpty)
        {
            throw new ArgumentException("The receive buffer is empty.", nameof(buffer));
        }

        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        return _pal.ReceiveFromAsync(buffer, cancellationToken);
    }

    /// <summary>Sends one datagram to <paramref name="destination"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is <see cref="DatagramAddress.None"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="payload"/> is longer than 65,527 bytes.</exception>
    /// <exception cref="SocketException">The kernel refused the datagram (for example, larger than the path allows).</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public async ValueTask SendToAsync(ReadOnlyMemory<byte> payload, DatagramAddress destination, CancellationToken cancellationToken = default)
    {
        if (!destination.HasValue)
        {
            throw new ArgumentException("A destination is required; use SendAsync(payload) on a connected socket.", nameof(destination));
        }

        CheckPayload(payload.Length);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        // One SocketAddress per socket, taken and given back so that concurrent sends never share one.
        var address = Interlocked.Exchange(ref _cachedSendAddress, null) ?? new SocketAddress(AddressFamily);
        try
        {
            await _pal.Socket.SendToAsync(payload, SocketFlags.None, _pal.WriteDestination(address, destination), cancellationToken).ConfigureAwait(false);
            _counters.OnSent(1, payload.Length);
        }
        catch (SocketException e) when (e.SocketErrorCode != SocketError.OperationAborted && !_pal.IsDisposed)
        {
            _counters.OnSendError();
            throw SendFailure(e, payload.Length, destination);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            throw new ObjectDisposedException(nameof(DatagramSocket), "The DatagramSocket was disposed.");
        }
        finally
        {
            _cachedSendAddress = address;
        }
    }

    /// <summary>Sends one datagram to the connected peer.</summary>
    /// <exception cref="InvalidOperationException">The socket is not connected.</exception>
    /// <exception cref="SocketException">The kernel refused the datagram.</exception>
    /// <exception cref="ObjectDisposedException">The socket was disposed.</exception>
    public async ValueTask SendAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default)
    {
        if (!RemoteAddress.HasValue)
        {
            throw new InvalidOperationException("The socket is not connected; use SendToAsync with a destination.");
        }

        CheckPayload(payload.Length);
        ObjectDisposedException.ThrowIf(_pal.IsDisposed, this);
        try
        {
            await _pal.Socket.SendAsync(payload, SocketFlags.None, cancellationToken).ConfigureAwait(false);
            _counters.OnSent(1, payload.Length);
        }
        catch (SocketException e) when (e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset)
        {
            // The ICMP error belongs to an earlier datagram; this one was not sent. Count and retry once.
            _counters.OnIcmpError();
            await _pal.Socket.SendAsync(payload, SocketFlags.None, cancellationToken).ConfigureAwait(false);
            _counters.OnSent(1, payload.Length);
        }
        catch (SocketException e) when (e.SocketErrorCode != SocketError.OperationAborted && !_pal.IsDisposed)
        {
            _counters.OnSendError();
            throw SendFailure(e, payload.Length, RemoteAddress);
        }
    }

    /// <summary>
    /// The largest payload that fits one IP packet on the route to <paramref name="destination"/>: the
    /// route's (or learned path) MTU less the IP and UDP headers. 65,507 where the MTU cannot be read.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is <see cref="DatagramAddress.None"/>.</exception>
    public int GetMaxDatagramSize(DatagramAddress destination)
    {
        if (!destination.HasValue)
        {
            throw new ArgumentException("A destination is required.", nameof(destination));
        }

        return Platform.Current.MaxDatagramSize(destination, _pal.Socket);
    }

    internal DatagramPal Pal => _pal;

    /// <summary>
    /// The socket's counters since it opened. <see cref="DatagramSocketStatistics.KernelDrops"/> is read from the kernel
    /// now (one system call on Linux); the rest are this socket's own counters.
    /// </summary>
    public DatagramSocketStatistics GetStatistics() => _counters.Snapshot() with { KernelDrops = ReadKernelDrops() };

    /// <summary>Datagrams the kernel dropped on this socket, read now; null where the platform does not say.</summary>
    internal long? ReadKernelDrops() => _kernelDrops?.Read();

    /// <summary>The one place this socket's datagrams are counted; the server's statistics and meter read it, and it outlives a dispose.</summary>
    internal SocketCounters Counters => _counters;

    /// <summary>Closes the socket; pending receives and sends end promptly with <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose() => _pal.Dispose();

    private static void CheckPayload(int length)
    {
        if (length > SendBatch.LargestDatagramSize)
        {
            throw new ArgumentOutOfRangeException(
                "payload", length, $"A UDP datagram carries at most {SendBatch.LargestDatagramSize} bytes; this one has {length}.");
        }
    }

    private SocketException SendFailure(SocketException e, int length, DatagramAddress destination) => e.SocketErrorCode == SocketError.MessageSize
        ? new DatagramTooLargeException(length, GetMaxDatagramSize(destination))
        : e;
}
