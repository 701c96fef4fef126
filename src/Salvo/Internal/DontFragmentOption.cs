using System.Net.Sockets;
using Salvo.Pal;

namespace Salvo.Internal;

/// <summary>
/// Sets <see cref="DatagramSocketOptions.DontFragment"/> through the platform's socket options, so every backend
/// sets it the same way; a socket that refuses it fails at open, naming the option.
/// </summary>
internal static class DontFragmentOption
{
    public static void Enable(Socket socket)
    {
        try
        {
            Platform.Current.EnableDontFragment(socket);
        }
        catch (SocketException e)
        {
            throw new NotSupportedException(
                $"DontFragment: this socket refused don't-fragment ({e.SocketErrorCode}: {e.Message}); leave DontFragment off to allow IP fragments.", e);
        }
    }
}
