namespace Salvo.Tunnel.Pal;

/// <summary>Any OS but Linux: no TUN device (refused, naming what is missing) and no cipher of its own (null: libsodium's is used).</summary>
internal sealed class PortableTunnelPlatform : TunnelPlatform
{
    public override TunDevice OpenTunDevice(string name, TunOffloads offloads = TunOffloads.None) =>
        throw new PlatformNotSupportedException($"TUN interface '{name}': a TUN device needs Linux's /dev/net/tun, which this platform does not have.");

    public override AeadKey? CreateChaCha20Poly1305Key(ReadOnlySpan<byte> key) => null;
}
