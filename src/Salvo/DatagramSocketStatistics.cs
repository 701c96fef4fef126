namespace Salvo;

/// <summary>A snapshot of a <see cref="DatagramSocket"/>'s counters since it was opened.</summary>
/// <param name="DatagramsReceived">Datagrams delivered to the application.</param>
/// <param name="BytesReceived">Payload bytes delivered (after any truncation).</param>
/// <param name="DatagramsSent">Datagrams the kernel accepted.</param>
/// <param name="BytesSent">Payload bytes the kernel accepted.</param>
/// <param name="ReceiveCalls">Receive system calls that returned data (datagrams / calls = batching achieved).</param>
/// <param name="SendCalls">Send system calls that moved data.</param>
/// <param name="TruncatedDatagrams">Datagrams longer than their buffer, delivered cut and marked truncated.</param>
/// <param name="IcmpErrors">ICMP errors reported by the kernel (port unreachable: ECONNREFUSED), counted and survived.</param>
/// <param name="SendErrors">Datagrams the kernel refused (each skipped; the rest of its batch still went out).</param>
/// <param name="GsoFallbacks">Times GSO was switched off because the kernel refused a segmented send (at most 1).</param>
public readonly record struct DatagramSocketStatistics(
    long DatagramsReceived,
    long BytesReceived,
    long DatagramsSent,
    long BytesSent,
    long ReceiveCalls,
    long SendCalls,
    long TruncatedDatagrams,
    long IcmpErrors,
    long SendErrors,
    long GsoFallbacks)
{
    /// <summary>
    /// Datagrams addressed to this socket that the kernel dropped instead of queuing them, nearly always because the
    /// receive buffer was full (<see cref="DatagramSocketOptions.ReceiveBufferSize"/>); they never reach
    /// <see cref="DatagramsReceived"/>, so sent = received + dropped here when nothing is lost on the way. Read from the
    /// kernel's per-socket counter (Linux: sk_drops through SO_MEMINFO, whatever the backend) when the statistics are
    /// taken; null where the platform does not report it (the portable platform, outside Linux), where loss can only be
    /// seen from the peer's numbering. A property rather than a constructor parameter, so code that builds or
    /// deconstructs the record by position keeps compiling.
    /// </summary>
    public long? KernelDrops { get; init; }

    /// <summary>
    /// Frames for this socket's port that the backend took off the wire itself and could not deliver: not a whole
    /// Ethernet, IPv4 or IPv6 and UDP packet to this socket (a bad IPv4 header checksum, lengths that disagree, a fragment,
    /// another port), dropped and counted here instead of reaching <see cref="DatagramsReceived"/>. Only
    /// <see cref="DatagramBackend.AfXdp"/> parses frames; 0 on backends that parse no frames, where the kernel checks the
    /// headers and drops a bad packet before any socket sees it.
    /// </summary>
    public long MalformedFrames { get; init; }

    /// <summary>
    /// <see cref="MalformedFrames"/> by reason (its <see cref="FrameDropCounts.Total"/> is that count): each check the
    /// kernel's UDP receive makes that a frame failed, such as a martian source or a wrong UDP checksum. All zero on
    /// backends that parse no frames.
    /// </summary>
    public FrameDropCounts MalformedFramesByReason { get; init; }
}
