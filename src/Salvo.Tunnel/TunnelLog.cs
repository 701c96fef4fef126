using Microsoft.Extensions.Logging;

namespace Salvo.Tunnel;

/// <summary>The tunnel's log messages, source-generated (no boxing or formatting unless enabled).</summary>
internal static partial class TunnelLog
{
    [LoggerMessage(1, LogLevel.Warning, "Tunnel refused a datagram from {Source}: {Reason} ({Suppressed} more for this reason not logged since the last entry)")]
    public static partial void RefusedDatagram(ILogger logger, string source, string reason, long suppressed);

    [LoggerMessage(EventId = 2, Message = "Tunnel refused a packet from the device: {Reason} ({Suppressed} more for this reason not logged since the last entry)")]
    public static partial void RefusedPacket(ILogger logger, LogLevel level, string reason, long suppressed);

    [LoggerMessage(3, LogLevel.Information, "Handshake completed with peer {PublicKey} at {Endpoint} as {Role}")]
    public static partial void HandshakeCompleted(ILogger logger, string publicKey, string endpoint, string role);

    [LoggerMessage(4, LogLevel.Warning, "Handshakes exceed {Budget} per second: under load, handshakes must now carry a cookie (MAC2)")]
    public static partial void UnderLoad(ILogger logger, int budget);

    [LoggerMessage(5, LogLevel.Information, "TUN {Name} offloads: {Offloads}")]
    public static partial void TunOffloads(ILogger logger, string name, string offloads);
}
