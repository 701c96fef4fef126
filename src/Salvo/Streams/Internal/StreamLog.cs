using System.Net;
using Microsoft.Extensions.Logging;

namespace Salvo.Streams;

/// <summary>Log messages of framed connections (source-generated, no allocation when the level is off).</summary>
internal static partial class StreamLog
{
    [LoggerMessage(EventId = 3001, Level = LogLevel.Debug, Message = "Connection {ConnectionId} with {RemoteEndPoint} opened")]
    public static partial void Opened(ILogger logger, long connectionId, EndPoint? remoteEndPoint);

    [LoggerMessage(EventId = 3002, Level = LogLevel.Debug, Message = "Connection {ConnectionId} with {RemoteEndPoint} closed ({Reason}) {Detail}")]
    public static partial void Closed(ILogger logger, long connectionId, EndPoint? remoteEndPoint, StreamCloseReason reason, string detail);

    [LoggerMessage(EventId = 3003, Level = LogLevel.Warning, Message = "Connection {ConnectionId} with {RemoteEndPoint} closed ({Reason}): {Detail}")]
    public static partial void ClosedOnError(ILogger logger, long connectionId, EndPoint? remoteEndPoint, StreamCloseReason reason, string detail);

    [LoggerMessage(EventId = 3004, Level = LogLevel.Error, Message = "Connection {ConnectionId} with {RemoteEndPoint} closed: the message handler threw")]
    public static partial void HandlerFailed(ILogger logger, long connectionId, EndPoint? remoteEndPoint, Exception exception);

    [LoggerMessage(EventId = 3007, Level = LogLevel.Warning, Message = "Connection {ConnectionId} with {RemoteEndPoint} closed while its message handler still ran after {CloseTimeout}; its receive buffers come back when the handler returns")]
    public static partial void HandlerStuck(ILogger logger, long connectionId, EndPoint? remoteEndPoint, TimeSpan closeTimeout);

    [LoggerMessage(EventId = 3005, Level = LogLevel.Warning, Message = "Accepting a connection on {EndPoint} failed; accepting goes on")]
    public static partial void AcceptFailed(ILogger logger, EndPoint endPoint, Exception exception);

    [LoggerMessage(EventId = 3006, Level = LogLevel.Warning, Message = "Connection from {RemoteEndPoint} refused: {Count} connections are open, MaxConnections is {Limit}")]
    public static partial void ConnectionLimit(ILogger logger, EndPoint? remoteEndPoint, int count, int limit);
}
