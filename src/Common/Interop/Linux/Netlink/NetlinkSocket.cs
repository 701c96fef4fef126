using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Interop.Linux;

/// <summary>
/// A NETLINK_ROUTE socket in the network namespace of the thread that opened it, and the request/reply loop over it:
/// one request and its answers (<see cref="Exchange{TBody}"/>), or many requests in one send with their
/// acknowledgements read back (<see cref="Send"/>, <see cref="Receive"/>). Setup-time only: nothing here is on a
/// datagram's or a packet's path. The one rtnetlink transport of the library (AF_XDP's lookups) and the tunnel (routes
/// and addresses of its interface).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class NetlinkSocket : IDisposable
{
    private const int RequestCapacity = 128;

    // 32 KiB holds a dump part: the kernel fills up to max(PAGE_SIZE, 8 KiB) per recvmsg (net/netlink/af_netlink.c).
    private readonly byte[] _receive = GC.AllocateUninitializedArray<byte>(32 * 1024, pinned: true);
    private readonly SafeDescriptorHandle _socket;
    private uint _sequence;

    private NetlinkSocket(SafeDescriptorHandle socket) => _socket = socket;

    /// <summary>The sequence number the next request gets; a batch numbers its messages from here.</summary>
    public uint NextSequence => _sequence + 1;

    /// <summary>
    /// Opens the socket with short acknowledgements (NETLINK_CAP_ACK) and the kernel's reason on a refusal
    /// (NETLINK_EXT_ACK); each is a nicety, and a kernel without it still answers.
    /// </summary>
    /// <exception cref="InvalidOperationException">The socket could not be opened.</exception>
    public static unsafe NetlinkSocket Open()
    {
        var fd = Libc.Socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (fd < 0)
        {
            throw new InvalidOperationException($"Opening a rtnetlink socket failed: {Libc.LastErrno}.");
        }

        var socket = new NetlinkSocket(new SafeDescriptorHandle(fd));
        var on = 1;

        // Safety: on lives on this frame for both calls, and its size is passed.
        Libc.SetSockOpt(socket._socket, SOL_NETLINK, NETLINK_CAP_ACK, &on, sizeof(int));
        Libc.SetSockOpt(socket._socket, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(int));
        return socket;
    }

    /// <summary>
    /// Raises the receive buffer to <paramref name="bytes"/> past net.core.rmem_max (SO_RCVBUFFORCE, root only), so a
    /// batch's acknowledgements all fit; false where that is refused and the default stays.
    /// </summary>
    public unsafe bool ForceReceiveBuffer(int bytes)
    {
        // Safety: bytes lives on this frame for the call, and its size is passed.
        return Libc.SetSockOpt(_socket, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(int)) == 0;
    }

    /// <summary>Takes <paramref name="count"/> sequence numbers for a batch; returns the first.</summary>
    public uint TakeSequences(int count)
    {
        var first = _sequence + 1;
        _sequence += (uint)count;
        return first;
    }

    public void Dispose() => _socket.Dispose();

    /// <summary>
    /// Sends one request (<paramref name="body"/> and <paramref name="attributes"/> after a header of
    /// <paramref name="type"/> and <paramref name="flags"/>, NLM_F_REQUEST always) and collects the replies: every part
    /// of a dump, the one answer, or the acknowledgement of a change (NLM_F_ACK).
    /// </summary>
    /// <returns>The replies' bodies (after their nlmsghdr) with their types, or the errno the kernel answered.</returns>
    public Errno Exchange<TBody>(ushort type, ushort flags, in TBody body, ReadOnlySpan<byte> attributes, List<(ushort Type, byte[] Body)> replies)
        where TBody : unmanaged
    {
        ArgumentNullException.ThrowIfNull(replies);
        Span<byte> request = stackalloc byte[RequestCapacity];
        var bodyLength = Marshal.SizeOf<TBody>();
        var length = NetlinkMessages.HeaderLength + NetlinkAttributes.Align(bodyLength) + attributes.Length;
        var sequence = ++_sequence;
        var header = new NlMsgHdr
        {
            Length = (uint)length,
            Type = type,
            Flags = (ushort)(NLM_F_REQUEST | flags),
            Sequence = sequence,
        };
        request[..length].Clear();
        MemoryMarshal.Write(request, in header);
        MemoryMarshal.Write(request[NetlinkMessages.HeaderLength..], in body);
        attributes.CopyTo(request[(NetlinkMessages.HeaderLength + NetlinkAttributes.Align(bodyLength))..]);
        if (Send(request[..length]) is var sent && sent != Errno.None)
        {
            return sent;
        }

        while (true)
        {
            var received = Receive(_receive, wait: true);
            if (received < 0)
            {
                return (Errno)(-received);
            }

            var messages = _receive.AsSpan(0, received);
            while (messages.Length >= NetlinkMessages.HeaderLength)
            {
                var reply = MemoryMarshal.Read<NlMsgHdr>(messages);
                if (reply.Length < NetlinkMessages.HeaderLength || reply.Length > messages.Length)
                {
                    return Errno.EIO;
                }

                var replyBody = messages[NetlinkMessages.HeaderLength..(int)reply.Length];
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
                    return replyBody.Length >= 4 ? (Errno)(-MemoryMarshal.Read<int>(replyBody)) : Errno.EIO;
                }

                replies.Add((reply.Type, replyBody.ToArray()));
                if ((reply.Flags & NLM_F_MULTI) == 0)
                {
                    return Errno.None;
                }
            }
        }
    }

    /// <summary>Sends <paramref name="requests"/>, one or many whole messages, in one call; the errno when it did not all go.</summary>
    public unsafe Errno Send(ReadOnlySpan<byte> requests)
    {
        // Safety: the span is fixed for the call and its length passed.
        fixed (byte* data = requests)
        {
            while (true)
            {
                var sent = Libc.Send(_socket, data, (nuint)requests.Length, 0);
                if (sent == requests.Length)
                {
                    return Errno.None;
                }

                var errno = sent < 0 ? Libc.LastErrno : Errno.EMSGSIZE;
                if (errno != Errno.EINTR)
                {
                    return errno;
                }
            }
        }
    }

    /// <summary>
    /// Reads the replies queued for the socket into <paramref name="buffer"/> (whole messages); waits for one unless
    /// <paramref name="wait"/> is false. Returns the bytes read, 0 when nothing was queued and not waiting, or -errno.
    /// </summary>
    public unsafe int Receive(Span<byte> buffer, bool wait)
    {
        // Safety: the span is fixed for the call and its length passed.
        fixed (byte* data = buffer)
        {
            while (true)
            {
                var received = Libc.Recv(_socket, data, (nuint)buffer.Length, wait ? 0 : MSG_DONTWAIT);
                if (received >= 0)
                {
                    return (int)received;
                }

                var errno = Libc.LastErrno;
                if (errno == Errno.EAGAIN && !wait)
                {
                    return 0;
                }

                if (errno != Errno.EINTR)
                {
                    return -(int)errno;
                }
            }
        }
    }
}
