using System.Net.Sockets;
using Salvo.Pal;

namespace Salvo.Internal;

/// <summary>Applies <see cref="DatagramSocketOptions"/> to a new socket before it binds.</summary>
internal static class SocketSetup
{
    public static void Configure(Socket socket, DatagramSocketOptions options)
    {
        if (socket.AddressFamily == AddressFamily.InterNetworkV6)
        {
            socket.DualMode = options.DualMode;
        }

        if (options.ReceiveBufferSize is int receive)
        {
            socket.ReceiveBufferSize = receive;
        }

        if (options.SendBufferSize is int send)
        {
            socket.SendBufferSize = send;
        }

        if (options.ReusePort)
        {
            EnableReusePort(socket);
        }

        if (options.DontFragment)
        {
            DontFragmentOption.Enable(socket);
        }
    }

    private static void EnableReusePort(Socket socket)
    {
        if (!Platform.Current.TryEnableReusePort(socket))
        {
            // Elsewhere the closest behaviour is address reuse; the kernel does not spread flows.
            socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        }
    }
}
