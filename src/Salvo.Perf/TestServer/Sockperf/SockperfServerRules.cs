namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>The server side of sockperf's protocol as pure functions over bytes.</summary>
internal static class SockperfServerRules
{
    /// <summary>What to do with a message whose header is valid.</summary>
    public static SockperfVerdict Decide(in SockperfHeader header) =>
        !header.IsClient ? SockperfVerdict.NotFromClient
        : header.IsWarmup ? SockperfVerdict.Warmup
        : header.IsPongRequest ? SockperfVerdict.Reply
        : SockperfVerdict.Count;

    /// <summary>What to do with one UDP datagram, which must hold exactly one message.</summary>
    public static SockperfVerdict DecideDatagram(ReadOnlySpan<byte> datagram) =>
        SockperfHeader.TryRead(datagram, out var header) != SockperfHeaderError.None ? SockperfVerdict.Malformed : DecideDatagram(header, datagram.Length);

    /// <summary>What to do with one UDP datagram of <paramref name="length"/> bytes whose header is already read.</summary>
    public static SockperfVerdict DecideDatagram(in SockperfHeader header, int length) =>
        header.Length != length ? SockperfVerdict.Malformed : Decide(header);

    /// <summary>
    /// Writes the answer to <paramref name="message"/>: the same bytes with the client flag cleared (the
    /// pong-request flag stays, as sockperf's server leaves it). Same length as the request, so it can
    /// never amplify.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="reply"/> is shorter than <paramref name="message"/>.</exception>
    public static void WriteReply(ReadOnlySpan<byte> message, Span<byte> reply)
    {
        message.CopyTo(reply);
        reply[SockperfHeader.FlagsOffset + 1] &= unchecked((byte)~(byte)SockperfFlags.Client);
    }

    /// <summary>
    /// Whether the first bytes of a TCP connection are a sockperf client's: <see cref="SockperfSniff.NeedMore"/>
    /// until a header's worth has arrived. A sequence number starts with a zero byte (it would take 2^56
    /// messages to reach the top byte), which no JSON control line or text handshake does.
    /// </summary>
    public static SockperfSniff Sniff(ReadOnlySpan<byte> first)
    {
        if (first.IsEmpty)
        {
            return SockperfSniff.NeedMore;
        }

        if (first[0] != 0)
        {
            return SockperfSniff.Other;
        }

        if (first.Length < SockperfHeader.Size)
        {
            return SockperfSniff.NeedMore;
        }

        return SockperfHeader.TryRead(first, out var header) == SockperfHeaderError.None && header.IsClient
            ? SockperfSniff.Sockperf
            : SockperfSniff.Other;
    }
}
