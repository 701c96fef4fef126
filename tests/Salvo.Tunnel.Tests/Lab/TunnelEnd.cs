namespace Salvo.Tunnel.Tests.Lab;

/// <summary>Which implementation runs one end of a lab tunnel.</summary>
public enum TunnelEnd
{
    /// <summary>Salvo's <see cref="TunnelDevice"/>, in this process, on a TUN device made inside the namespace.</summary>
    Salvo,

    /// <summary>Stock wireguard-go, configured with wg setconf.</summary>
    WireGuardGo,
}
