using System.Net;
using Microsoft.Extensions.Logging;

namespace Salvo.Server;

/// <summary>The server's log messages, source-generated (no boxing or formatting unless enabled).</summary>
internal static partial class ServerLog
{
    [LoggerMessage(1, LogLevel.Information, "Datagram server listening on {EndPoint}: {Workers} workers, {Backend} backend, {IoModel} I/O, {Processing} processing")]
    public static partial void Started(ILogger logger, IPEndPoint endPoint, int workers, DatagramBackend backend, ServerIoModel ioModel, ServerProcessing processing);

    [LoggerMessage(2, LogLevel.Information, "Datagram server on {EndPoint} stopped: {Received} received, {Handled} handled, {Dropped} dropped")]
    public static partial void Stopped(ILogger logger, IPEndPoint endPoint, long received, long handled, long dropped);

    [LoggerMessage(3, LogLevel.Error, "Handler failed on worker {Worker} ({Suppressed} more failures not logged since the last entry)")]
    public static partial void HandlerFailed(ILogger logger, int worker, long suppressed, Exception exception);

    [LoggerMessage(4, LogLevel.Warning, "Receive failed on worker {Worker}; the worker goes on ({Suppressed} more not logged since the last entry)")]
    public static partial void ReceiveFailed(ILogger logger, int worker, long suppressed, Exception exception);

    [LoggerMessage(5, LogLevel.Warning, "Sending replies failed on worker {Worker}: {Failed} refused, first error {Error} ({Suppressed} more not logged since the last entry)")]
    public static partial void SendFailed(ILogger logger, int worker, int failed, System.Net.Sockets.SocketError error, long suppressed);

    [LoggerMessage(6, LogLevel.Warning, "Stop gave up draining after {DrainTimeout}: {Dropped} queued datagrams dropped")]
    public static partial void DrainTimedOut(ILogger logger, TimeSpan drainTimeout, long dropped);

    [LoggerMessage(7, LogLevel.Warning, "A handler on {EndPoint} did not return after the drain; its worker is abandoned")]
    public static partial void WorkerAbandoned(ILogger logger, IPEndPoint endPoint);

    [LoggerMessage(8, LogLevel.Warning, "SO_BUSY_POLL of {Microseconds} us was refused ({Reason}); receiving goes on without it")]
    public static partial void KernelBusyPollRefused(ILogger logger, int microseconds, string reason);

    [LoggerMessage(9, LogLevel.Information, "BusyPoll is ignored on the {Backend} backend: it has no non-blocking batched receive")]
    public static partial void BusyPollIgnored(ILogger logger, DatagramBackend backend);
}
