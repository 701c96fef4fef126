using System.Runtime.InteropServices;
using System.Text;
using Salvo.Tunnel.Interop.Linux;
using Native = Salvo.Tunnel.Interop.Linux.Interop;

namespace Salvo.Tunnel.Pal.Linux;

/// <summary>
/// A TUN interface from <c>/dev/net/tun</c> (IFF_TUN | IFF_NO_PI): each read returns one IP packet, each write
/// sends one. The descriptor is non-blocking and waited on with poll, so a read loop wakes at least every timeout
/// and stops promptly. Reads go straight into the batch's pinned buffers: nothing is allocated per packet.
/// </summary>
public sealed class LinuxTunDevice : ITunDevice
{
    private int _fd;

    private LinuxTunDevice(int fd, string name)
    {
        _fd = fd;
        Name = name;
    }

    /// <inheritdoc />
    public string Name { get; }

    /// <summary>Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick tunN.</summary>
    /// <exception cref="IOException">The device cannot be opened (not root, no /dev/net/tun) or the name is refused.</exception>
    public static unsafe LinuxTunDevice Open(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (Encoding.ASCII.GetByteCount(name) >= TunConstants.InterfaceNameSize)
        {
            throw new ArgumentException($"An interface name is at most {TunConstants.InterfaceNameSize - 1} characters.", nameof(name));
        }

        var fd = Native.Open("/dev/net/tun", Native.OpenReadWriteNonBlockingCloseOnExec);
        if (fd < 0)
        {
            throw new IOException($"open /dev/net/tun failed: {Marshal.GetLastPInvokeErrorMessage()} (needs root or CAP_NET_ADMIN)");
        }

        Span<byte> request = stackalloc byte[TunConstants.InterfaceRequestSize];
        request.Clear();
        Encoding.ASCII.GetBytes(name, request);
        MemoryMarshal.Write(request[TunConstants.InterfaceNameSize..], (short)(TunConstants.InterfaceTun | TunConstants.InterfaceNoPacketInfo));
        int result;
        // Safety: request is a 40-byte stack buffer, the size of struct ifreq that TUNSETIFF reads and writes.
        fixed (byte* pointer = request)
        {
            result = Native.Ioctl(fd, TunConstants.TunSetInterface, pointer);
        }

        if (result < 0)
        {
            var message = Marshal.GetLastPInvokeErrorMessage();
            Native.Close(fd);
            throw new IOException($"TUNSETIFF '{name}' failed: {message}");
        }

        var given = request[..TunConstants.InterfaceNameSize];
        var end = given.IndexOf((byte)0);
        return new LinuxTunDevice(fd, Encoding.ASCII.GetString(end < 0 ? given : given[..end]));
    }

    /// <inheritdoc />
    public unsafe int ReadBatch(PacketBatch batch, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(batch);
        batch.Clear();
        var fd = _fd;
        ObjectDisposedException.ThrowIf(fd < 0, this);
        var poll = new Native.PollFd { Fd = fd, Events = Native.PollIn };
        // Safety: poll reads and writes the one pollfd on this stack frame.
        var ready = Native.Poll(&poll, 1, (int)timeout.TotalMilliseconds);
        if (ready <= 0)
        {
            return 0;
        }

        while (!batch.IsFull)
        {
            var buffer = batch.NextBuffer;
            nint read;
            // Safety: the batch's storage is pinned, and read writes at most buffer.Length bytes into it.
            fixed (byte* pointer = buffer)
            {
                read = Native.Read(fd, pointer, (nuint)buffer.Length);
            }

            if (read < 0)
            {
                var error = Marshal.GetLastPInvokeError();
                if (error is TunConstants.ErrorAgain or TunConstants.ErrorInterrupted)
                {
                    break;
                }

                throw new IOException($"read from {Name} failed: {Marshal.GetPInvokeErrorMessage(error)}");
            }

            batch.Commit((int)read);
        }

        return batch.Count;
    }

    /// <inheritdoc />
    public unsafe bool Write(ReadOnlySpan<byte> packet)
    {
        var fd = _fd;
        ObjectDisposedException.ThrowIf(fd < 0, this);
        // Safety: write reads exactly packet.Length bytes from the pinned span.
        fixed (byte* pointer = packet)
        {
            return Native.Write(fd, pointer, (nuint)packet.Length) == packet.Length;
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        var fd = Interlocked.Exchange(ref _fd, -1);
        if (fd >= 0)
        {
            Native.Close(fd);
        }
    }
}
