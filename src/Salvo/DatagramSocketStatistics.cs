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
    long GsoFallbacks);
