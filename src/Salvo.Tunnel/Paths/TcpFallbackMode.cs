namespace Salvo.Tunnel.Paths;

/// <summary>Whether a peer's WireGuard messages may travel over a framed TCP connection instead of UDP.</summary>
public enum TcpFallbackMode
{
    /// <summary>
    /// UDP first; TCP to the peer's TCP listener (the port number of its UDP endpoint) when UDP stops being answered,
    /// and back to UDP when a probe is answered. A peer with no TCP listener (wireguard-go, the kernel module) refuses
    /// the connection and the tunnel simply stays on UDP.
    /// </summary>
    Auto,

    /// <summary>UDP only, as WireGuard itself: never dial TCP, never switch.</summary>
    Off,

    /// <summary>TCP only: dial at once and send nothing over UDP (for networks known to drop UDP).</summary>
    Only,
}
