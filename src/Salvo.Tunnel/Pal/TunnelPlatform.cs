namespace Salvo.Tunnel.Pal;

/// <summary>
/// Everything in the tunnel that depends on the operating system, chosen once per process: the TUN device and the
/// platform's own ChaCha20-Poly1305. Callers ask for a device or a key, never which OS it is, and where the platform
/// has none they are told why (a device) or given null (a key: the tunnel then uses libsodium's). A new device
/// feature (multi-queue TUN) is one member here and its implementation beside each of the two below. The library's
/// sockets are Salvo's own platform layer; the libc imports both need are one copy of source in src/Common.
/// </summary>
internal abstract class TunnelPlatform
{
    /// <summary>The platform of this process: Linux, or the portable one that has neither a TUN device nor a cipher of its own.</summary>
    public static TunnelPlatform Current { get; } = OperatingSystem.IsLinux() ? new LinuxTunnelPlatform() : new PortableTunnelPlatform();

    /// <summary>
    /// Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick one.
    /// <paramref name="offloads"/> asks for super-packets and partial checksums; the device's
    /// <see cref="TunDevice.Offloads"/> says what the kernel took (none where it takes none).
    /// </summary>
    /// <exception cref="PlatformNotSupportedException">The platform has no TUN device; the message says what is missing.</exception>
    /// <exception cref="ArgumentException">The name is too long for an interface name.</exception>
    /// <exception cref="IOException">The kernel refused the device or the name.</exception>
    public abstract TunDevice OpenTunDevice(string name, TunOffloads offloads = TunOffloads.None);

    /// <summary>A ChaCha20-Poly1305 key held by the platform's crypto library, or null where the platform has none to offer.</summary>
    /// <exception cref="ArgumentException">The key is not 32 bytes.</exception>
    public abstract AeadKey? CreateChaCha20Poly1305Key(ReadOnlySpan<byte> key);

    /// <summary>Sets the firewall mark (SO_MARK) of the datagrams <paramref name="socket"/> sends; 0 clears it.</summary>
    /// <exception cref="PlatformNotSupportedException">The platform has no firewall marks.</exception>
    /// <exception cref="System.Net.Sockets.SocketException">The kernel refused (SO_MARK needs CAP_NET_ADMIN).</exception>
    public abstract void SetSocketMark(System.Net.Sockets.Socket socket, uint mark);

    /// <summary>
    /// A listening Unix socket at <paramref name="path"/> that only the owner (root) may connect to (mode 0600), in a
    /// directory made 0755 if missing. A socket file left by a process that is gone (nobody answers on it) is replaced;
    /// one that answers is not.
    /// </summary>
    /// <exception cref="IOException">Another process listens on <paramref name="path"/>.</exception>
    /// <exception cref="PlatformNotSupportedException">The platform has no Unix sockets with file modes.</exception>
    public abstract System.Net.Sockets.Socket ListenOwnerOnly(string path);

    /// <summary>Addresses, MTU and routes of a tunnel's interface, as wg-quick sets them with ip(8).</summary>
    /// <exception cref="PlatformNotSupportedException">The platform has no routing tables this tunnel can write.</exception>
    public abstract Routing.IInterfaceSetup OpenInterfaceSetup();

    /// <summary>
    /// Raises the calling thread's nice value alone by <paramref name="levels"/> (at most to 19, the lowest priority),
    /// so it runs after the process's other threads when the CPUs are busy; false where the platform has no
    /// per-thread priority or refused it, and the thread runs as before.
    /// </summary>
    public abstract bool TryLowerCurrentThreadPriority(int levels);
}
