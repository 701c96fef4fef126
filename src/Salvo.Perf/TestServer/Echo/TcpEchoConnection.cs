using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace Salvo.Perf.TestServer.Echo;

/// <summary>
/// One TCP echo client (RFC 862): what it sends comes back, in order, through one 64 KiB buffer; the
/// next read waits until the last chunk is written, so a client that does not read stalls only itself.
/// </summary>
internal static class TcpEchoConnection
{
    private const int BufferBytes = 64 * 1024;

    /// <summary>Echoes until the client closes its side or the server stops; never throws.</summary>
    /// <param name="socket">The accepted connection; disposed at the end.</param>
    /// <param name="echoedBytes">Added to after every chunk written back.</param>
    /// <param name="cancellationToken">Stops the connection.</param>
    public static async Task ServeAsync(Socket socket, StrongBox<long> echoedBytes, CancellationToken cancellationToken)
    {
        var buffer = GC.AllocateUninitializedArray<byte>(BufferBytes);
        try
        {
            socket.NoDelay = true;
            while (true)
            {
                var read = await socket.ReceiveAsync(buffer, SocketFlags.None, cancellationToken).ConfigureAwait(false);
                if (read == 0)
                {
                    socket.Shutdown(SocketShutdown.Send);
                    return;
                }

                for (var sent = 0; sent < read;)
                {
                    sent += await socket.SendAsync(buffer.AsMemory(sent, read - sent), SocketFlags.None, cancellationToken).ConfigureAwait(false);
                }

                Interlocked.Add(ref echoedBytes.Value, read);
            }
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The client reset the connection, or the server is stopping.
        }
        finally
        {
            socket.Dispose();
        }
    }
}
