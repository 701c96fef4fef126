using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Salvo.Interop.Linux;

namespace Salvo.Tunnel.Pal;

/// <summary>
/// A TUN interface from <c>/dev/net/tun</c> with IFF_TUN | IFF_NO_PI (Documentation/networking/tuntap.rst): each read
/// returns one bare IP packet, each write sends one. Asked for offloads, it adds IFF_VNET_HDR and offers TUNSETOFFLOAD
/// the most it can handle, stepping down where the kernel says EINVAL (USO needs 6.2): then each read and write
/// starts with a virtio_net_hdr, and a read may be a 64 KiB TCP or UDP super-packet. The descriptor is non-blocking
/// and waited on with poll(2), so a reader wakes at least every timeout and stops promptly; reads go straight into the
/// caller's buffer. The interface lives as long as the descriptor: closing it removes an interface this device created.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxTunDevice : TunDevice
{
    private const string DevicePath = "/dev/net/tun";
    private const int VirtioNetHdrSize = 10;

    private readonly SafeDescriptorHandle _handle;

    /// <summary>
    /// A UDP socket, never bound, for the interface requests the TUN descriptor does not answer (its MTU). Opened with
    /// the device, so it belongs to the network namespace the interface was created in, whichever thread asks later.
    /// </summary>
    private readonly Socket _requests = new(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);

    private LinuxTunDevice(SafeDescriptorHandle handle, string name, bool hasVirtioHeader, TunOffloads offloads)
    {
        _handle = handle;
        Name = name;
        VirtioHeaderSize = hasVirtioHeader ? VirtioNetHdrSize : 0;
        Offloads = offloads;
    }

    public override string Name { get; }

    public override TunOffloads Offloads { get; }

    public override int VirtioHeaderSize { get; }

    /// <summary>Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick tunN.</summary>
    /// <exception cref="ArgumentException">The name does not fit IFNAMSIZ.</exception>
    /// <exception cref="IOException">The device cannot be opened (no /dev/net/tun) or the kernel refuses the interface (not root).</exception>
    public static unsafe LinuxTunDevice Open(string name, TunOffloads offloads)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (Encoding.ASCII.GetByteCount(name) >= Constants.IFNAMSIZ)
        {
            throw new ArgumentException($"An interface name is at most {Constants.IFNAMSIZ - 1} characters; '{name}' has {name.Length}.", nameof(name));
        }

        var descriptor = Libc.Open(DevicePath, Constants.O_RDWR | Constants.O_NONBLOCK | Constants.O_CLOEXEC);
        if (descriptor < 0)
        {
            throw Failure($"open {DevicePath}");
        }

        var handle = new SafeDescriptorHandle(descriptor);
        var wantsHeader = offloads != TunOffloads.None;
        var request = new IfReq { Flags = (short)(Constants.IFF_TUN | Constants.IFF_NO_PI | (wantsHeader ? Constants.IFF_VNET_HDR : 0)) };
        Encoding.ASCII.GetBytes(name, request.Name);
        // Safety: request is a 40-byte struct ifreq on this frame's stack, the size TUNSETIFF reads and writes back.
        if (Libc.Ioctl(handle, Constants.TUNSETIFF, &request) < 0)
        {
            var failure = Failure($"TUNSETIFF '{name}'");
            handle.Dispose();
            throw failure;
        }

        ReadOnlySpan<byte> given = request.Name;
        var end = given.IndexOf((byte)0);
        var granted = wantsHeader ? SetOffloads(handle, offloads) : TunOffloads.None;
        return new LinuxTunDevice(handle, Encoding.ASCII.GetString(end < 0 ? given : given[..end]), wantsHeader, granted);
    }

    /// <summary>
    /// Offers the kernel the offloads asked for, then fewer while it refuses (a kernel before 6.2 refuses USO with
    /// EINVAL); returns what it took. TSO and USO both need CSUM (drivers/net/tun.c, set_offload).
    /// </summary>
    private static unsafe TunOffloads SetOffloads(SafeDescriptorHandle handle, TunOffloads wanted)
    {
        TunOffloads[] steps = [wanted | TunOffloads.Checksum, (wanted & ~TunOffloads.Udp) | TunOffloads.Checksum, TunOffloads.Checksum];
        foreach (var step in steps)
        {
            var bits = Constants.TUN_F_CSUM
                | ((step & TunOffloads.Tcp) != 0 ? Constants.TUN_F_TSO4 | Constants.TUN_F_TSO6 : 0)
                | ((step & TunOffloads.Udp) != 0 ? Constants.TUN_F_USO4 | Constants.TUN_F_USO6 : 0);
            // Safety: TUNSETOFFLOAD takes its argument by value (an unsigned int in the pointer slot) and dereferences nothing.
            if (Libc.Ioctl(handle, Constants.TUNSETOFFLOAD, (void*)(nuint)bits) == 0)
            {
                return step;
            }
        }

        return TunOffloads.None;
    }

    public override unsafe int ReadMtu()
    {
        var request = MtuRequest(0);
        // Safety: request is a 40-byte struct ifreq on this frame's stack, the size SIOCGIFMTU reads and writes back.
        return Libc.Ioctl(_requests.SafeHandle, Constants.SIOCGIFMTU, &request) < 0 ? 0 : request.Mtu;
    }

    public override unsafe void SetMtu(int mtu)
    {
        var request = MtuRequest(mtu);
        // Safety: request is a 40-byte struct ifreq on this frame's stack, the size SIOCSIFMTU reads.
        if (Libc.Ioctl(_requests.SafeHandle, Constants.SIOCSIFMTU, &request) < 0)
        {
            throw Failure($"SIOCSIFMTU '{Name}' {mtu}");
        }
    }

    public override unsafe bool WaitForPacket(int timeoutMilliseconds)
    {
        using var lease = new DescriptorLease(_handle);
        // Safety: one pollfd on this frame's stack, count 1; the lease keeps the descriptor open while poll(2) waits.
        var poll = new PollFd { Fd = lease.Descriptor, Events = Constants.POLLIN };
        return Libc.Poll(&poll, 1, timeoutMilliseconds) > 0;
    }

    public override unsafe int TryRead(Span<byte> buffer)
    {
        nint read;
        // Safety: the span is pinned for the call, and read(2) writes at most buffer.Length bytes into it.
        fixed (byte* pointer = buffer)
        {
            read = Libc.Read(_handle, pointer, (nuint)buffer.Length);
        }

        if (read >= 0)
        {
            return (int)read;
        }

        var errno = Libc.LastErrno;
        return errno is Errno.EAGAIN or Errno.EINTR ? 0 : throw new IOException($"read from {Name} failed: {Marshal.GetPInvokeErrorMessage((int)errno)}");
    }

    public override unsafe bool Write(ReadOnlySpan<byte> header, ReadOnlySpan<byte> packet)
    {
        if (header.IsEmpty)
        {
            // Safety: the span is pinned for the call, and write(2) reads exactly packet.Length bytes from it.
            fixed (byte* pointer = packet)
            {
                return Libc.Write(_handle, pointer, (nuint)packet.Length) == packet.Length;
            }
        }

        // Safety: both spans are pinned for the call; the two iovecs on this frame's stack name exactly their bytes,
        // and writev(2) only reads them. Gathering saves copying the packet behind its header.
        fixed (byte* headerPointer = header)
        fixed (byte* packetPointer = packet)
        {
            var vectors = stackalloc IOVec[2];
            vectors[0] = new IOVec { Base = headerPointer, Length = (nuint)header.Length };
            vectors[1] = new IOVec { Base = packetPointer, Length = (nuint)packet.Length };
            return Libc.Writev(_handle, vectors, 2) == header.Length + packet.Length;
        }
    }

    public override void Dispose()
    {
        _handle.Dispose();
        _requests.Dispose();
    }

    private IfReqMtu MtuRequest(int mtu)
    {
        var request = new IfReqMtu { Mtu = mtu };
        Encoding.ASCII.GetBytes(Name, request.Name);
        return request;
    }

    /// <summary>The last call's errno as an exception, with what to do where the fix is known.</summary>
    private static IOException Failure(string call)
    {
        var errno = Libc.LastErrno;
        var hint = errno switch
        {
            Errno.EPERM or Errno.EACCES => " (needs root or CAP_NET_ADMIN)",
            Errno.ENOENT or Errno.ENODEV => " (no TUN driver: modprobe tun)",
            _ => string.Empty,
        };
        return new IOException($"{call} failed: {Marshal.GetPInvokeErrorMessage((int)errno)}{hint}");
    }
}
