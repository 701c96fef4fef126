namespace Salvo.Tunnel.Pal;

/// <summary>
/// A TUN device: a layer-3 interface whose IP packets this process reads (what the kernel routes to it) and writes
/// (what the kernel then takes as arriving on it), one packet per call. A reader waits once with
/// <see cref="WaitForPacket"/>, then reads until <see cref="TryRead"/> finds nothing ready, so one wait serves a
/// batch. With <see cref="Offloads"/>, every read and write carries a <see cref="VirtioHeaderSize"/>-byte
/// virtio_net_hdr first, and a read may be a super-packet for the reader to cut. Opened by
/// <see cref="TunnelPlatform.OpenTunDevice"/>; disposing it removes an interface it created.
/// </summary>
internal abstract class TunDevice : IDisposable
{
    /// <summary>The interface name the kernel gave (for example <c>tun0</c>).</summary>
    public abstract string Name { get; }

    /// <summary>The offloads the kernel took; <see cref="TunOffloads.None"/> for plain packets.</summary>
    public abstract TunOffloads Offloads { get; }

    /// <summary>Bytes of virtio_net_hdr before every packet read and written: 10 when the device has one, else 0.</summary>
    public abstract int VirtioHeaderSize { get; }

    /// <summary>The interface's MTU as the kernel has it now; 0 when it cannot be read (the interface was renamed or deleted).</summary>
    public abstract int ReadMtu();

    /// <summary>Sets the interface's MTU, as <c>ip link set dev NAME mtu N</c> does.</summary>
    /// <exception cref="IOException">The kernel refused the value (a TUN takes 68 to 65,535) or the request.</exception>
    public abstract void SetMtu(int mtu);

    /// <summary>Blocks up to <paramref name="timeoutMilliseconds"/> (-1: forever) for a packet; false on timeout.</summary>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract bool WaitForPacket(int timeoutMilliseconds);

    /// <summary>
    /// Reads one packet (behind its virtio_net_hdr when the device has one) into <paramref name="buffer"/> without
    /// waiting: its length, 0 when none is ready.
    /// </summary>
    /// <exception cref="IOException">The kernel refused the read for another reason.</exception>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract int TryRead(Span<byte> buffer);

    /// <summary>
    /// Hands one IP packet to the kernel, behind <paramref name="header"/> (exactly <see cref="VirtioHeaderSize"/>
    /// bytes) in the same call; false when it refused it (the caller counts those).
    /// </summary>
    /// <exception cref="ObjectDisposedException">The device was disposed.</exception>
    public abstract bool Write(ReadOnlySpan<byte> header, ReadOnlySpan<byte> packet);

    /// <summary>Closes the device once no call is using it.</summary>
    public abstract void Dispose();
}
