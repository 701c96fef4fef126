using Microsoft.Extensions.Logging;

namespace Salvo.Diagnostics;

/// <summary>The datagram socket's log messages: rare events only, never one per datagram.</summary>
internal static partial class SocketLog
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Warning,
        Message = "UDP GSO switched off for the socket on {LocalEndPoint}: the kernel refused a segmented send with {Error}; datagrams are resent without it")]
    public static partial void GsoSwitchedOff(ILogger logger, string localEndPoint, string error);

    [LoggerMessage(EventId = 2, Level = LogLevel.Warning,
        Message = "The IoUring backend is not available ({Reason}); sockets that ask for it use LinuxBatched")]
    public static partial void IoUringFallback(ILogger logger, string reason);
}
