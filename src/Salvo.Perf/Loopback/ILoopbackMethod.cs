using System.Net;

namespace Salvo.Perf.Loopback;

/// <summary>
/// One way of moving datagrams from a sender to a receiver, measured by <c>salvo loopback</c>. To add a
/// method, implement this interface and list it in <see cref="LoopbackMethods"/>; the runner gives each
/// end its own thread (pinned unless --no-pin), so an end's <c>Run</c> may block.
/// </summary>
internal interface ILoopbackMethod
{
    /// <summary>The name used on the command line and in reports (lowercase, dashes).</summary>
    string Name { get; }

    /// <summary>One line on what it does, for --help and the docs.</summary>
    string Description { get; }

    /// <summary>
    /// True when the ends run async code whose continuations may run on pool threads: its allocations are
    /// then counted process-wide (GC.GetTotalAllocatedBytes) rather than per thread.
    /// </summary>
    bool IsAsync { get; }

    /// <summary>Opens a receiver bound to <see cref="LoopbackPoint.ReceiverAddress"/> (port 0).</summary>
    LoopbackReceiver CreateReceiver(LoopbackPoint point);

    /// <summary>Opens a sender that sends to <paramref name="receiver"/>.</summary>
    LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver);
}

/// <summary>What one measurement point asks of a method.</summary>
/// <param name="PayloadBytes">Bytes per datagram (the first 8 carry the sequence number).</param>
/// <param name="SocketBufferBytes">SO_RCVBUF and SO_SNDBUF to ask for, the same for every method.</param>
/// <param name="Workers">Receiving workers; 1 today, room for a future workers axis.</param>
/// <param name="ReceiverAddress">Where the receiver binds.</param>
/// <param name="Backend">The backend of Salvo's sockets (the plain .NET methods ignore it).</param>
/// <param name="Connected">
/// Whether the sender connects its socket to the receiver and sends without a destination, as a client with one
/// peer does (the kernel then skips the route lookup per send); otherwise each send names the receiver.
/// </param>
internal sealed record LoopbackPoint(int PayloadBytes, int SocketBufferBytes, int Workers, IPAddress ReceiverAddress, DatagramBackend Backend = DatagramBackend.Auto, bool Connected = false);

/// <summary>The receiving end: counts what arrives until told to stop.</summary>
internal abstract class LoopbackReceiver : IDisposable
{
    /// <summary>The bound address the sender sends to.</summary>
    public abstract IPEndPoint LocalEndPoint { get; }

    /// <summary>The backend the receiving Salvo socket reports it uses; null for the plain .NET methods.</summary>
    public virtual DatagramBackend? Backend => null;

    /// <summary>
    /// Receives on the calling (dedicated) thread, reporting each receive to <paramref name="meter"/>, until
    /// <paramref name="stop"/> is cancelled. Must notice the cancellation within ~50 ms while idle.
    /// </summary>
    public abstract void Run(EndpointMeter meter, CancellationToken stop);

    /// <inheritdoc />
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Closes the socket.</summary>
    protected abstract void Dispose(bool disposing);
}

/// <summary>The sending end: sends as fast as it can, each datagram numbered, until the meter's window ends.</summary>
internal abstract class LoopbackSender : IDisposable
{
    /// <summary>
    /// Sends on the calling (dedicated) thread until <see cref="EndpointMeter.IsOver"/> or
    /// <paramref name="maxDatagrams"/>, reporting each send to <paramref name="meter"/>.
    /// </summary>
    public abstract void Run(EndpointMeter meter, long maxDatagrams);

    /// <inheritdoc />
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Closes the socket.</summary>
    protected abstract void Dispose(bool disposing);
}
