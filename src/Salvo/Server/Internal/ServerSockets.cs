using System.Net;
using Microsoft.Extensions.Logging;
using Salvo.Pal;

namespace Salvo.Server;

/// <summary>Opens a server's sockets: one per worker where the platform shards a port across sockets, one shared elsewhere.</summary>
internal static class ServerSockets
{
    public static DatagramSocket[] Open(DatagramServerOptions options)
    {
        var perWorker = Platform.Current.ShardsByReusePort && options.Backend != DatagramBackend.Portable;
        var count = perWorker ? options.Workers : 1;
        var sockets = new DatagramSocket[count];
        var opened = 0;
        try
        {
            // Worker 0 binds first, so that port 0 resolves to a real port the other workers then join; unless the port is
            // to be shared, it binds only once a probe found the port free (see ExclusivePort).
            var endPoint = options.ResolveEndPoint();
            var reusePort = options.Socket.ReusePort || count > 1 || options.SharePort;
            DatagramSocket Bind(IPEndPoint at)
            {
                var socketOptions = options.Socket.Clone();
                socketOptions.LocalEndPoint = at;
                socketOptions.ReusePort = reusePort;
                return new DatagramSocket(socketOptions);
            }

            sockets[0] = options.SharePort ? Bind(endPoint) : ExclusivePort.BindFirst(endPoint, options.DualMode, Bind);
            for (opened = 1; opened < count; opened++)
            {
                sockets[opened] = Bind(new IPEndPoint(endPoint.Address, sockets[0].LocalEndPoint.Port));
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

    /// <summary>Sets the kernel's busy poll on every socket; returns false (and logs why) when it is refused.</summary>
    public static bool TrySetKernelBusyPoll(DatagramSocket[] sockets, int microseconds, ILogger logger)
    {
        foreach (var socket in sockets)
        {
            if (Platform.Current.TrySetKernelBusyPoll(socket.Socket, microseconds) is string refusal)
            {
                ServerLog.KernelBusyPollRefused(logger, microseconds, refusal);
                return false;
            }
        }

        return true;
    }
}
