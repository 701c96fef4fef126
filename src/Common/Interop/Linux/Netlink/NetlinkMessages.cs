using System.Runtime.InteropServices;
using System.Text;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Interop.Linux;

/// <summary>
/// Netlink messages in a buffer the kernel wrote (include/uapi/linux/netlink.h): whole messages one by one, and the
/// NLMSG_ERROR answers that acknowledge or refuse a request. Every length is checked against the buffer: a message
/// that claims more than is there ends the reading, it is never trusted.
/// </summary>
internal static class NetlinkMessages
{
    /// <summary>sizeof(struct nlmsghdr): length, type, flags, sequence, port id.</summary>
    public const int HeaderLength = 16;

    /// <summary>NLMSG_ALIGN: messages and attributes start on 4-byte boundaries.</summary>
    public static int Align(int length) => (length + 3) & ~3;

    /// <summary>The whole message at <paramref name="offset"/>, header included, and moves past it; false at the end or at one too short to be a message.</summary>
    public static bool TryReadMessage(ReadOnlySpan<byte> buffer, ref int offset, out ReadOnlySpan<byte> message)
    {
        message = default;
        if (offset < 0 || buffer.Length - offset < HeaderLength)
        {
            return false;
        }

        var length = (int)Read<uint>(buffer, offset);
        if (length < HeaderLength || length > buffer.Length - offset)
        {
            return false;
        }

        message = buffer.Slice(offset, length);
        offset += Align(length);
        return true;
    }

    /// <summary>
    /// Reads the message at <paramref name="offset"/> and moves past it; false at the end or at a malformed one. An
    /// NLMSG_ERROR gives the request's sequence, 0 or -errno, and the kernel's text (NETLINK_EXT_ACK) when it sent one.
    /// </summary>
    public static bool TryReadAnswer(ReadOnlySpan<byte> buffer, ref int offset, out ushort type, out uint sequence, out int error, out string? reason)
    {
        type = 0;
        sequence = 0;
        error = 0;
        reason = null;
        if (!TryReadMessage(buffer, ref offset, out var message))
        {
            return false;
        }

        type = Read<ushort>(message, 4);
        var flags = Read<ushort>(message, 6);
        sequence = Read<uint>(message, 8);
        if (type != NLMSG_ERROR || message.Length < HeaderLength + 4 + HeaderLength)
        {
            return true;
        }

        error = Read<int>(message, HeaderLength);
        var echoed = (flags & NLM_F_CAPPED) != 0 ? HeaderLength : Align((int)Read<uint>(message, HeaderLength + 4));
        var attributes = HeaderLength + 4 + echoed;
        if ((flags & NLM_F_ACK_TLVS) != 0 && attributes >= 0 && attributes <= message.Length
            && NetlinkAttributes.TryFind(message[attributes..], NLMSGERR_ATTR_MSG, out var text))
        {
            var end = text.IndexOf((byte)0);
            reason = Encoding.UTF8.GetString(end < 0 ? text : text[..end]);
        }

        return true;
    }

    public static T Read<T>(ReadOnlySpan<byte> buffer, int offset)
        where T : unmanaged => MemoryMarshal.Read<T>(buffer[offset..]);

    public static void Write<T>(Span<byte> buffer, int offset, T value)
        where T : unmanaged => MemoryMarshal.Write(buffer[offset..], in value);
}
