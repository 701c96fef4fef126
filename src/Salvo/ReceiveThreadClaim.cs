namespace Salvo;

/// <summary>
/// A thread's claim to make every receive on a <see cref="DatagramSocket"/> (from
/// <see cref="DatagramSocket.ClaimReceivesForThisThread"/>). Dispose it on the same thread when that thread receives no
/// more: on <see cref="DatagramBackend.IoUring"/> that frees the thread's own ring and its buffers (8.7 MiB), which a
/// thread that ends without it keeps until the process ends.
/// </summary>
/// <remarks>
/// The ring belongs to the thread, not to one socket: disposing any claim the thread holds frees it, and every socket the
/// thread claimed goes on receiving through the shared rings from its next receive.
/// </remarks>
public sealed class ReceiveThreadClaim : IDisposable
{
    private readonly DatagramSocket _socket;
    private readonly int _threadId;
    private bool _disposed;

    internal ReceiveThreadClaim(DatagramSocket socket)
    {
        _socket = socket;
        _threadId = Environment.CurrentManagedThreadId;
        socket.ReceiveOnThisThreadOnly();
        OwnRing = socket.IsReceivingOnThisThreadsRing;
    }

    /// <summary>
    /// Whether the socket's receives run on the claiming thread's own io_uring ring, driven by that thread's blocking
    /// <see cref="DatagramSocket.Receive(ReceiveBatch, TimeSpan)"/> calls. False on another backend, for a socket that had
    /// already received (its receive stays on a shared ring), or where the kernel refused the thread a ring of its own.
    /// </summary>
    public bool OwnRing { get; }

    /// <summary>Ends the claim and frees the thread's own ring, if it has one.</summary>
    /// <exception cref="InvalidOperationException">Called on a thread other than the one that claimed the socket: a ring can be freed only by its own thread.</exception>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        if (Environment.CurrentManagedThreadId != _threadId)
        {
            throw new InvalidOperationException(
                $"A receive claim is ended on the thread that made it (managed thread {_threadId}), not on thread {Environment.CurrentManagedThreadId}.");
        }

        _disposed = true;
        _socket.EndReceivingOnThisThread();
    }
}
