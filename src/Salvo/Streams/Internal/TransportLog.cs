using System.Net;
using Microsoft.Extensions.Logging;

namespace Salvo.Streams;

/// <summary>Log messages of message transports.</summary>
internal static partial class TransportLog
{
    [LoggerMessage(EventId = 3101, Level = LogLevel.Information, Message = "Messages with {RemoteEndPoint} go over {Transport}: {Reason}")]
    public static partial void Selected(ILogger logger, EndPoint remoteEndPoint, TransportKind transport, string reason);

    [LoggerMessage(EventId = 3102, Level = LogLevel.Debug, Message = "Dropped a datagram from {Source}: {Reason}")]
    public static partial void Dropped(ILogger logger, DatagramAddress source, string reason);

    [LoggerMessage(EventId = 3103, Level = LogLevel.Error, Message = "The message handler threw on a datagram from {Source}; receiving goes on")]
    public static partial void HandlerFailed(ILogger logger, DatagramAddress source, Exception exception);

    [LoggerMessage(EventId = 3104, Level = LogLevel.Debug, Message = "UDP probe to {RemoteEndPoint} unanswered, staying on TCP: {Reason}")]
    public static partial void ProbeUnanswered(ILogger logger, EndPoint remoteEndPoint, string reason);

    [LoggerMessage(EventId = 3105, Level = LogLevel.Warning, Message = "UDP to {RemoteEndPoint} stopped answering and TCP failed too, staying on UDP: {Error}")]
    public static partial void TcpFallbackFailed(ILogger logger, EndPoint remoteEndPoint, string error);

    [LoggerMessage(EventId = 3106, Level = LogLevel.Error, Message = "A TransportSelected handler threw while messages with {RemoteEndPoint} moved to {Transport}; the move stands")]
    public static partial void SelectedHandlerFailed(ILogger logger, EndPoint remoteEndPoint, TransportKind transport, Exception exception);

    [LoggerMessage(EventId = 3107, Level = LogLevel.Error, Message = "Moving messages with {RemoteEndPoint} between UDP and TCP stopped on an unexpected error; the path in use stays")]
    public static partial void PathSwitchingFailed(ILogger logger, EndPoint remoteEndPoint, Exception exception);

    [LoggerMessage(EventId = 3108, Level = LogLevel.Warning, Message = "The TCP connection to {RemoteEndPoint} closed ({Reason}); reconnecting: {Reconnecting}")]
    public static partial void TcpClosed(ILogger logger, EndPoint remoteEndPoint, StreamCloseReason reason, bool reconnecting);

    [LoggerMessage(EventId = 3109, Level = LogLevel.Information, Message = "The TCP connection to {RemoteEndPoint} is open again after {Attempts} attempt(s), {DowntimeMs:0} ms without one")]
    public static partial void TcpReopened(ILogger logger, EndPoint remoteEndPoint, int attempts, double downtimeMs);

    [LoggerMessage(EventId = 3110, Level = LogLevel.Debug, Message = "Reconnect attempt {Attempt} to {RemoteEndPoint} failed: {Error}")]
    public static partial void TcpReconnectFailed(ILogger logger, EndPoint remoteEndPoint, int attempt, string error);

    [LoggerMessage(EventId = 3111, Level = LogLevel.Error, Message = "A {Event} handler of the transport to {RemoteEndPoint} threw; the transport goes on")]
    public static partial void EventHandlerFailed(ILogger logger, EndPoint remoteEndPoint, string @event, Exception exception);
}
