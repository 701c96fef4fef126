using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Pal;

/// <summary>
/// A NETLINK_ROUTE socket asking the kernel about links, addresses, routes and neighbours in the network namespace
/// of the thread that opened it. Setup-time only: each reply is copied out, nothing here is on a datagram's path.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class RouteNetlink : IDisposable
{
    private const int HeaderLength = 16;
    private const int RequestCapacity = 128;

    // 32 KiB holds a dump part: the kernel fills up to max(PAGE_SIZE, 8 KiB) per recvmsg (net/netlink/af_netlink.c).
    private readonly byte[] _receive = GC.AllocateUninitializedArray<byte>(32 * 1024, pinned: true);
    private readonly SafeDescriptorHandle _socket;
    private uint _sequence;

    private RouteNetlink(SafeDescriptorHandle socket) => _socket = socket;

    /// <exception cref="InvalidOperationException">The socket could not be opened.</exception>
    public static RouteNetlink Open()
    {
        var fd = Libc.Socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (fd < 0)
        {
            throw new InvalidOperationException($"Opening a rtnetlink socket failed: {Libc.LastErrno}.");
        }

        return new RouteNetlink(new SafeDescriptorHandle(fd));
    }

    public void Dispose() => _socket.Dispose();

    /// <summary>
    /// Sends one request (<paramref name="body"/> and <paramref name="attributes"/> after a header of
    /// <paramref name="type"/>) and collects the replies: every part of a dump, or the one answer.
    /// </summary>
    /// <returns>The replies' bodies (after their nlmsghdr) with their types, or the errno the kernel answered.</returns>
    private Errno Exchange<TBody>(ushort type, bool dump, in TBody body, ReadOnlySpan<byte> attributes, List<(ushort Type, byte[] Body)> replies)
        where TBody : unmanaged
    {
        Span<byte> request = stackalloc byte[RequestCapacity];
        var bodyLength = Marshal.SizeOf<TBody>();
        var length = HeaderLength + NetlinkAttributes.Align(bodyLength) + attributes.Length;
        var sequence = ++_sequence;
        var header = new NlMsgHdr
        {
            Length = (uint)length,
            Type = type,
            Flags = (ushort)(NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0)),
            Sequence = sequence,
        };
        request[..length].Clear();
        MemoryMarshal.Write(request, in header);
        MemoryMarshal.Write(request[HeaderLength..], in body);
        attributes.CopyTo(request[(HeaderLength + NetlinkAttributes.Align(bodyLength))..]);
        var sent = Transfer(request[..length], send: true);
        if (sent < 0)
        {
            return Libc.LastErrno;
        }

        while (true)
        {
            var received = Transfer(_receive, send: false);
            if (received < 0)
            {
                var errno = Libc.LastErrno;
                if (errno == Errno.EINTR)
                {
                    continue;
                }

                return errno;
            }

            var messages = _receive.AsSpan(0, received);
            while (messages.Length >= HeaderLength)
            {
                var reply = MemoryMarshal.Read<NlMsgHdr>(messages);
                if (reply.Length < HeaderLength || reply.Length > messages.Length)
                {
                    return Errno.EIO;
                }

                var replyBody = messages[HeaderLength..(int)reply.Length];
                var next = NetlinkAttributes.Align((int)reply.Length);
                messages = next >= messages.Length ? [] : messages[next..];
                if (reply.Sequence != sequence)
                {
                    continue;
                }

                if (reply.Type == NLMSG_DONE)
                {
                    return Errno.None;
                }

                if (reply.Type == NLMSG_ERROR)
                {
                    var error = replyBody.Length >= 4 ? -MemoryMarshal.Read<int>(replyBody) : (int)Errno.EIO;
                    return (Errno)error;
                }

                replies.Add((reply.Type, replyBody.ToArray()));
                if ((reply.Flags & NLM_F_MULTI) == 0)
                {
                    return Errno.None;
                }
            }
        }
    }

    // Safety: the buffer is fixed for the call; the message header and its one iovec live on this frame and describe
    // exactly the buffer's length.
    private unsafe int Transfer(Span<byte> buffer, bool send)
    {
        fixed (byte* data = buffer)
        {
            var vector = new IOVec { Base = data, Length = (nuint)buffer.Length };
            var message = new MsgHdr { IOVecs = &vector, IOVecCount = 1 };
            return (int)(send ? Libc.SendMsg(_socket, &message, 0) : Libc.RecvMsg(_socket, &message, 0));
        }
    }
}
