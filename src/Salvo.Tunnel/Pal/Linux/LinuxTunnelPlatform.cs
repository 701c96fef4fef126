using System.Runtime.Versioning;

namespace Salvo.Tunnel.Pal;

/// <summary>Linux: TUN interfaces from /dev/net/tun, ChaCha20-Poly1305 from OpenSSL's libcrypto where it loads.</summary>
[SupportedOSPlatform("linux")]
internal sealed class LinuxTunnelPlatform : TunnelPlatform
{
    public override TunDevice OpenTunDevice(string name, TunOffloads offloads = TunOffloads.None) => LinuxTunDevice.Open(name, offloads);

    public override AeadKey? CreateChaCha20Poly1305Key(ReadOnlySpan<byte> key) => OpenSslChaCha20Poly1305Key.TryCreate(key);
}
