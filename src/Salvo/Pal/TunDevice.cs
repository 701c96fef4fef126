namespace Salvo.Pal;

/// <summary>
/// A TUN device: a layer-3 interface whose IP packets this process reads (what the kernel routes to it) and writes
/// (what the kernel then takes as arriving on it), one packet per call. A reader waits once with
/// <see cref="WaitForPacket"/>, then reads until <see cref="TryRead"/> finds nothing ready, so one wait serves a
/// batch. Opened by <see cref="Platform.OpenTunDevice"/>; disposing it removes an interface it created.
/// </summary>
internal abstract class TunDevice : IDisposable
{
    /// <summary>The interface name the kernel gave (for example <c>tun0</c>).</summary>
    public abstract string Name { get; }

    /// <summary>Blocks up to <paramref name="timeoutMilliseconds"/> (-1: forever) for a packet; false on timeout.</summary>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract bool WaitForPacket(int timeoutMilliseconds);

    /// <summary>Reads one packet into <paramref name="buffer"/> without waiting: its length, 0 when none is ready.</summary>
    /// <exception cref="IOException">The kernel refused the read for another reason.</exception>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract int TryRead(Span<byte> buffer);

    /// <summary>Hands one IP packet to the kernel; false when it refused it (the caller counts those).</summary>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract bool Write(ReadOnlySpan<byte> packet);

    /// <summary>Closes the device once no call is using it.</summary>
    public abstract void Dispose();
}
