namespace Salvo.Tunnel.Paths;

/// <summary>The path a peer's messages are sent over now.</summary>
public enum TunnelPath
{
    /// <summary>UDP datagrams, as WireGuard sends them.</summary>
    Udp,

    /// <summary>The same messages, length-prefixed on one TCP connection.</summary>
    Tcp,
}
