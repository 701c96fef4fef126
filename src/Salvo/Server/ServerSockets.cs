using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;

namespace Salvo.Server;

/// <summary>Opens a server's sockets: one per worker with SO_REUSEPORT on Linux, one shared elsewhere.</summary>
internal static class ServerSockets
{
    public static DatagramSocket[] Open(DatagramServerOptions options)
    {
        var perWorker = OperatingSystem.IsLinux() && options.Backend != DatagramBackend.Portable;
        var count = perWorker ? options.Workers : 1;
        var sockets = new DatagramSocket[count];
        var opened = 0;
        try
        {
            // Worker 0 binds first, so that port 0 resolves to a real port the other workers then join.
            var endPoint = options.ResolveEndPoint();
            for (; opened < count; opened++)
            {
                sockets[opened] = new DatagramSocket(new DatagramSocketOptions
                {
                    LocalEndPoint = endPoint,
                    DualMode = options.DualMode,
                    ReceiveBufferSize = options.ReceiveBufferSize,
                    SendBufferSize = options.SendBufferSize,
                    ReusePort = count > 1,
                    Backend = options.Backend,
                    // GRO would let one receive buffer carry up to 64 datagrams, so a batch could exceed BatchSize
                    // and its replies overflow the worker's reply batch (room for BatchSize: one reply per request).
                    Gro = false,
                });
                endPoint = new IPEndPoint(endPoint.Address, sockets[0].LocalEndPoint.Port);
            }

            return sockets;
        }
        catch
        {
            for (var i = 0; i < opened; i++)
            {
                sockets[i].Dispose();
            }

            throw;
        }
    }

    /// <summary>Sets SO_BUSY_POLL on every socket; returns false (and logs why) when the kernel refuses it.</summary>
    public static bool TrySetKernelBusyPoll(DatagramSocket[] sockets, int microseconds, ILogger logger)
    {
        if (!OperatingSystem.IsLinux())
        {
            ServerLog.KernelBusyPollRefused(logger, microseconds, "SO_BUSY_POLL is Linux-only");
            return false;
        }

        Span<byte> value = stackalloc byte[sizeof(int)];
        BitConverter.TryWriteBytes(value, microseconds);
        try
        {
            foreach (var socket in sockets)
            {
                socket.Socket.SetRawSocketOption(Interop.Linux.Constants.SOL_SOCKET, Interop.Linux.Constants.SO_BUSY_POLL, value);
            }

            return true;
        }
        catch (SocketException e)
        {
            // EPERM above net.core.busy_poll without CAP_NET_ADMIN (net/core/sock.c, sk_setsockopt).
            ServerLog.KernelBusyPollRefused(logger, microseconds, $"{e.SocketErrorCode}: {e.Message}");
            return false;
        }
    }
}
