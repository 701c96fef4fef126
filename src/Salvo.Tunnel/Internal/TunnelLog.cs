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

    [LoggerMessage(4, LogLevel.Warning, "Handshakes exceed {Budget} per second, or an eighth of the handshake queue waits: under load, handshakes must now carry a cookie (MAC2)")]
    public static partial void UnderLoad(ILogger logger, int budget);

    [LoggerMessage(5, LogLevel.Information, "Peer {PublicKey} moved from {From} to {To}: {Reason}")]
    public static partial void PathSwitched(ILogger logger, string publicKey, string from, string to, string reason);

    [LoggerMessage(6, LogLevel.Warning, "Peer {PublicKey}: no TCP fallback to {Endpoint} ({Error}); staying on UDP, next attempt in {Seconds:0.0} s")]
    public static partial void TcpFallbackFailed(ILogger logger, string publicKey, string endpoint, string error, double seconds);

    [LoggerMessage(7, LogLevel.Warning, "Tunnel TCP listener on port {Port} did not start ({Error}): peers cannot fall back to TCP towards this end")]
    public static partial void TcpListenerFailed(ILogger logger, int port, string error);
    [LoggerMessage(10, LogLevel.Warning, "Tunnel closed a TCP fallback connection from {Source}: {Reason} ({Suppressed} more for this reason not logged since the last entry)")]
    public static partial void RefusedTcpConnection(ILogger logger, string source, string reason, long suppressed);

    [LoggerMessage(8, LogLevel.Information, "TUN {Name} offloads: {Offloads}")]
    public static partial void TunOffloads(ILogger logger, string name, string offloads);

    [LoggerMessage(9, LogLevel.Warning, "Tunnel {Name}: receiving from the {Source} failed; the loop goes on ({Suppressed} more not logged since the last entry)")]
    public static partial void ReceiveFailed(ILogger logger, string name, string source, long suppressed, Exception exception);

    [LoggerMessage(10, LogLevel.Error, "Tunnel {Name}: the {Loop} loop dropped the batch it held after an unexpected error; the loop goes on ({Suppressed} more not logged since the last entry)")]
    public static partial void LoopError(ILogger logger, string name, string loop, long suppressed, Exception exception);

    [LoggerMessage(11, LogLevel.Critical, "Tunnel {Name}: the {Loop} loop ended; the tunnel no longer carries packets that way")]
    public static partial void LoopEnded(ILogger logger, string name, string loop, Exception exception);

    [LoggerMessage(12, LogLevel.Information, "Tunnel {Name}: interface MTU {Old} -> {New}; padding follows it and buffers grow to hold it")]
    public static partial void MtuChanged(ILogger logger, string name, int old, int @new);

    [LoggerMessage(13, LogLevel.Warning, "Peer {PublicKey} at {Endpoint} does not answer: {Initiations} handshake initiations over {Seconds} s without a response. Likely causes: the peer's public key here, or ours there, is wrong (a peer drops initiations not made for its key without a word); the endpoint is wrong; or a firewall drops UDP on the way")]
    public static partial void PeerUnanswered(ILogger logger, string publicKey, string endpoint, long initiations, long seconds);

    [LoggerMessage(40, LogLevel.Warning, "Tunnel {Name}: control socket request refused with errno {Errno}: {Error}")]
    public static partial void ControlRefused(ILogger logger, string name, int errno, string error);

    [LoggerMessage(41, LogLevel.Information, "Tunnel {Name}: configuration changed through the control socket ({Peers} peer entries)")]
    public static partial void ControlChanged(ILogger logger, string name, int peers);

    [LoggerMessage(42, LogLevel.Debug, "Tunnel {Name}: control connection closed: {Reason}")]
    public static partial void ControlConnectionClosed(ILogger logger, string name, string reason);
}
