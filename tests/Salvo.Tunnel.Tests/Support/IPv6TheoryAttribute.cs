namespace Salvo.Tunnel.Tests.Support;

/// <summary>A theory whose cases include IPv6 loopback: skipped, with the reason, where the host has no IPv6.</summary>
public sealed class IPv6TheoryAttribute : TheoryAttribute
{
    public IPv6TheoryAttribute()
    {
        if (!System.Net.Sockets.Socket.OSSupportsIPv6)
        {
            Skip = "Needs IPv6 (the device binds dual-stack and one case runs over ::1).";
        }
    }
}
