using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// A TUN interface from <c>/dev/net/tun</c> with IFF_TUN | IFF_NO_PI (Documentation/networking/tuntap.rst): each read
/// returns one bare IP packet, each write sends one. The descriptor is non-blocking and waited on with poll(2), so a
/// reader wakes at least every timeout and stops promptly; reads go straight into the caller's buffer. The
/// interface lives as long as the descriptor: closing it removes an interface this device created.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxTunDevice : TunDevice
{
    private const string DevicePath = "/dev/net/tun";

    private readonly SafeDescriptorHandle _handle;

    private LinuxTunDevice(SafeDescriptorHandle handle, string name)
    {
        _handle = handle;
        Name = name;
    }

    public override string Name { get; }

    /// <summary>Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick tunN.</summary>
    /// <exception cref="ArgumentException">The name does not fit IFNAMSIZ.</exception>
    /// <exception cref="IOException">The device cannot be opened (no /dev/net/tun) or the kernel refuses the interface (not root).</exception>
    public static unsafe LinuxTunDevice Open(string name)
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
        var request = new IfReq { Flags = Constants.IFF_TUN | Constants.IFF_NO_PI };
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
        return new LinuxTunDevice(handle, Encoding.ASCII.GetString(end < 0 ? given : given[..end]));
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

    public override unsafe bool Write(ReadOnlySpan<byte> packet)
    {
        // Safety: the span is pinned for the call, and write(2) reads exactly packet.Length bytes from it.
        fixed (byte* pointer = packet)
        {
            return Libc.Write(_handle, pointer, (nuint)packet.Length) == packet.Length;
        }
    }

    public override void Dispose() => _handle.Dispose();

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
