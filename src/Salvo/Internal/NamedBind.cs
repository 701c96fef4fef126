using System.Net;
using System.Net.Sockets;

namespace Salvo.Internal;

/// <summary>
/// Binds a socket so that a refusal names the endpoint: the runtime's SocketException says only "Address already in use",
/// which leaves a service with several sockets guessing which one failed.
/// </summary>
internal static class NamedBind
{
    /// <exception cref="SocketException">The bind was refused: the same error code, the message naming <paramref name="endPoint"/>.</exception>
    public static void Bind(Socket socket, IPEndPoint endPoint)
    {
        try
        {
            socket.Bind(endPoint);
        }
        catch (SocketException e)
        {
            throw new SocketException((int)e.SocketErrorCode, $"{endPoint} cannot be bound: {e.Message}");
        }
    }
}
