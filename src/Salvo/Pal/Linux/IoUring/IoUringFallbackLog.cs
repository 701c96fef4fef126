using Microsoft.Extensions.Logging;
using Salvo.Diagnostics;

namespace Salvo.Pal;

/// <summary>Says once per process why sockets that asked for io_uring got the batched backend instead.</summary>
internal static class IoUringFallbackLog
{
    private static int s_logged;

    public static void Once(ILogger? logger, string reason)
    {
        if (logger is not null && Interlocked.Exchange(ref s_logged, 1) == 0)
        {
            SocketLog.IoUringFallback(logger, reason);
        }
    }
}
