namespace Salvo.Tunnel.Pal;

/// <summary>Any OS but Linux: no TUN device (refused, naming what is missing) and no cipher of its own (null: libsodium's is used).</summary>
internal sealed class PortableTunnelPlatform : TunnelPlatform
{
    public override TunDevice OpenTunDevice(string name, TunOffloads offloads = TunOffloads.None) =>
        throw new PlatformNotSupportedException($"TUN interface '{name}': a TUN device needs Linux's /dev/net/tun, which this platform does not have.");

    public override AeadKey? CreateChaCha20Poly1305Key(ReadOnlySpan<byte> key) => null;

    public override void SetSocketMark(System.Net.Sockets.Socket socket, uint mark) =>
        throw new PlatformNotSupportedException("A firewall mark (SO_MARK) needs Linux.");

    public override System.Net.Sockets.Socket ListenOwnerOnly(string path) =>
        throw new PlatformNotSupportedException($"Control socket '{path}': an owner-only Unix socket needs Linux.");

    public override Routing.IInterfaceSetup OpenInterfaceSetup() =>
        throw new PlatformNotSupportedException("Adding a tunnel interface's addresses and routes needs Linux's rtnetlink.");

    public override bool TryLowerCurrentThreadPriority(int levels) => false;
}
