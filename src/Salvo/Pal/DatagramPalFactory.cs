using System.Net.Sockets;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>Chooses the backend once, when a socket opens.</summary>
internal static class DatagramPalFactory
{
    public static DatagramPal Create(Socket socket, DatagramBackend requested, SocketCounters counters)
    {
        var useLinux = requested switch
        {
            DatagramBackend.LinuxBatched => true,
            DatagramBackend.Portable => false,
            _ => LinuxDatagramPal.IsSupported,
        };

        return useLinux ? new LinuxDatagramPal(socket, counters) : new PortableDatagramPal(socket, counters);
    }
}
