using System.Buffers.Binary;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Tunnel.Pal;

/// <summary>Linux: TUN interfaces from /dev/net/tun, ChaCha20-Poly1305 from OpenSSL's libcrypto where it loads.</summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxTunnelPlatform : TunnelPlatform
{
    public override TunDevice OpenTunDevice(string name, TunOffloads offloads = TunOffloads.None) => LinuxTunDevice.Open(name, offloads);

    public override AeadKey? CreateChaCha20Poly1305Key(ReadOnlySpan<byte> key) => OpenSslChaCha20Poly1305Key.TryCreate(key);

    public override void SetSocketMark(Socket socket, uint mark)
    {
        Span<byte> value = stackalloc byte[sizeof(uint)];
        BinaryPrimitives.WriteUInt32LittleEndian(value, mark);
        socket.SetRawSocketOption(SolSocket, SoMark, value);
    }

    public override Socket ListenOwnerOnly(string path) => OwnerOnlyUnixSocket.Listen(path);

    public override Routing.IInterfaceSetup OpenInterfaceSetup() => NetlinkInterfaceSetup.Open();

    // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id reads and sets that thread's only
    // (setpriority(2), BUGS). Relative to the thread's own, so a process started niced keeps the order.
    public override bool TryLowerCurrentThreadPriority(int levels)
    {
        var thread = (uint)Libc.GetTid();
        var current = Libc.GetPriority(Libc.PrioProcess, thread);
        if (current == -1 && Libc.LastErrno != Errno.None)
        {
            return false;
        }

        return Libc.SetPriority(Libc.PrioProcess, thread, Math.Min(MaxNiceness, current + levels)) == 0;
    }

    /// <summary>The highest nice value, the lowest priority (sched.h, MAX_NICE).</summary>
    private const int MaxNiceness = 19;

    /// <summary>SOL_SOCKET and SO_MARK from asm-generic/socket.h (the same on x86-64 and arm64).</summary>
    private const int SolSocket = 1;
    private const int SoMark = 36;
}
