using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// The seam between <see cref="DatagramSocket"/> and the operating system: one implementation is chosen
/// when the socket opens (see <see cref="Platform.OpenDatagram"/>). Members return counts; errors that end
/// the operation surface as exceptions only at the public edge.
/// </summary>
internal abstract class DatagramPal : IDisposable
{
    private int _disposed;

    protected DatagramPal(Socket socket, SocketCounters counters, DatagramSocketOptions options)
    {
        Socket = socket;
        Counters = counters;
        IsIPv6 = socket.AddressFamily == AddressFamily.InterNetworkV6;
        Logger = options.Logger ?? NullLogger.Instance;
    }

    public ILogger Logger { get; }

    /// <summary>What this socket does, given the kernel and the options.</summary>
    public abstract DatagramCapabilities Capabilities { get; }

    public Socket Socket { get; }

    public SocketCounters Counters { get; }

    public bool IsIPv6 { get; }

    public bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    public abstract DatagramBackend Backend { get; }

    /// <summary>Whether <see cref="Receive"/> with a zero timeout returns at once when nothing is queued, cheaply enough to spin on.</summary>
    public abstract bool CanSpinReceive { get; }

    /// <summary>Whether a thread blocked in <see cref="Receive"/> wakes when the socket closes, even while other threads share the socket.</summary>
    public abstract bool BlockingReceiveWakesOnClose { get; }

    /// <summary>Waits for at least one datagram, then fills as many as are queued; returns the count.</summary>
    public abstract ValueTask<int> ReceiveAsync(ReceiveBatch batch, CancellationToken cancellationToken);

    /// <summary>Blocks up to <paramref name="timeoutMilliseconds"/> (-1: forever) for datagrams; 0 on timeout.</summary>
    public abstract int Receive(ReceiveBatch batch, int timeoutMilliseconds);

    /// <summary>Sends every datagram of the batch; returns how many the kernel accepted.</summary>
    public abstract ValueTask<int> SendAsync(SendBatch batch, CancellationToken cancellationToken);

    /// <summary>Blocking form of <see cref="SendAsync"/>.</summary>
    public abstract int Send(SendBatch batch);

    /// <summary>
    /// Sends what the send buffer takes now and never waits for room: what it cannot take is recorded as failed with
    /// <see cref="SocketError.WouldBlock"/>. A backend with no non-blocking send waits as <see cref="Send"/> does.
    /// </summary>
    public virtual int TrySend(SendBatch batch) => Send(batch);

    /// <summary>Bytes of sends the kernel still charges to the socket's send buffer; -1 where the backend cannot tell.</summary>
    public virtual int QueuedSendBytes => -1;

    /// <summary>
    /// Says that every receive on this socket will come from the calling thread (a dedicated receive loop), so a
    /// backend may tie its receive machinery to that thread. A promise, not checked: until that thread calls
    /// <see cref="EndReceivingOnThisThread"/>, a receive from another thread may read what the thread frees when it
    /// does. Does nothing by default.
    /// </summary>
    public virtual void ReceiveOnThisThreadOnly()
    {
    }

    /// <summary>
    /// Says that the calling thread, which claimed sockets with <see cref="ReceiveOnThisThreadOnly"/>, receives no more:
    /// a backend releases what it tied to the thread. Does nothing by default.
    /// </summary>
    public virtual void EndReceivingOnThisThread()
    {
    }

    /// <summary>Whether the calling thread drives this socket's receives on a ring of its own. False by default.</summary>
    public virtual bool IsReceivingOnThisThreadsRing => false;

    /// <summary>Receives one datagram into caller memory.</summary>
    public abstract ValueTask<ReceiveResult> ReceiveFromAsync(Memory<byte> buffer, CancellationToken cancellationToken);

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            Close();
        }
    }

    protected abstract void Close();

    /// <summary>An IPv4 socket cannot send to an IPv6 address; an IPv6 socket reaches both (mapped).</summary>
    protected bool CanReach(DatagramAddress destination) =>
        IsIPv6 || destination.Family != AddressFamily.InterNetworkV6;

    /// <summary>Writes <paramref name="destination"/> into a reusable holder, IPv4-mapped on an IPv6 socket.</summary>
    internal SocketAddress WriteDestination(SocketAddress holder, DatagramAddress destination)
    {
        (IsIPv6 ? destination.MapToIPv6() : destination).WriteTo(holder);
        return holder;
    }

    /// <summary>
    /// The result of a loop run with a wait strategy that blocks the caller's thread: its waits complete before they
    /// return, so the loop never suspends and its task is complete (no box, no allocation) when the call returns.
    /// </summary>
    protected static T Completed<T>(ValueTask<T> loop)
    {
        Debug.Assert(loop.IsCompleted, "a blocking wait strategy suspended");
        return loop.GetAwaiter().GetResult();
    }

    protected ObjectDisposedException Disposed() => new(nameof(DatagramSocket), "The DatagramSocket was disposed.");
}
