using System.Net.Sockets;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>Chooses the backend once, when a socket opens.</summary>
internal static class DatagramPalFactory
{
    public static DatagramPal Create(Socket socket, DatagramSocketOptions options, SocketCounters counters)
    {
        var useLinux = options.Backend switch
        {
            DatagramBackend.LinuxBatched => true,
            DatagramBackend.Portable => false,
            _ => LinuxDatagramPal.IsSupported,
        };

        return useLinux ? new LinuxDatagramPal(socket, counters, options) : new PortableDatagramPal(socket, counters, options);
    }
}
