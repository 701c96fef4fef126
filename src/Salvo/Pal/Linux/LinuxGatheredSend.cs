using System.Buffers;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// Hands a send queue that spans several pool blocks to the kernel in one <c>sendmsg</c> with one iovec per block,
/// where sending block by block is one system call per 4 KiB.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class LinuxGatheredSend
{
    /// <summary>Blocks per call: 64 KiB of default blocks, well under the kernel's IOV_MAX of 1,024.</summary>
    public const int MaxBlocks = 16;

    /// <summary>
    /// Sends what the socket buffer takes now from the first <see cref="MaxBlocks"/> blocks of
    /// <paramref name="queue"/>, without waiting: the bytes sent, 0 when the buffer is full.
    /// </summary>
    /// <exception cref="SocketException">The connection failed (reset, for instance).</exception>
    /// <exception cref="ObjectDisposedException">The socket was closed.</exception>
    public static unsafe long TrySend(Socket socket, in ReadOnlySequence<byte> queue)
    {
        var pins = default(BlockPins);
        // Safety: at most MaxBlocks iovecs, each for a block pinned by its MemoryHandle until the finally below releases it,
        // after the synchronous sendmsg returned.
        var vectors = stackalloc IOVec[MaxBlocks];
        var count = 0;
        nint sent;
        var errno = Errno.None;
        try
        {
            foreach (var block in queue)
            {
                if (count == MaxBlocks)
                {
                    break;
                }

                if (block.IsEmpty)
                {
                    continue;
                }

                // Pool blocks never move (pinned object heap), but the pipe may hold a larger unpooled array: pin each.
                pins[count] = block.Pin();
                vectors[count] = new IOVec { Base = pins[count].Pointer, Length = (nuint)block.Length };
                count++;
            }

            var message = new MsgHdr { IOVecs = vectors, IOVecCount = (nuint)count };
            sent = Libc.SendMsg(socket.SafeHandle, &message, Constants.MSG_DONTWAIT | Constants.MSG_NOSIGNAL);
            if (sent < 0)
            {
                errno = Libc.LastErrno;
            }
        }
        finally
        {
            for (var i = 0; i < count; i++)
            {
                pins[i].Dispose();
            }
        }

        if (sent >= 0)
        {
            return sent;
        }

        return errno is Errno.EAGAIN or Errno.EINTR ? 0 : throw new SocketException((int)errno.ToSocketError());
    }

    [InlineArray(MaxBlocks)]
    private struct BlockPins
    {
        private MemoryHandle _first;
    }
}
