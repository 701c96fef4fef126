using Salvo.Server;

namespace Salvo.Perf.TestServer.Echo;

/// <summary>What the echo service did since it started (or, as a difference, in one interval).</summary>
/// <param name="UdpReceived">Datagrams received.</param>
/// <param name="UdpEchoed">Datagrams sent back.</param>
/// <param name="UdpBytesEchoed">Their payload bytes.</param>
/// <param name="RateLimited">Datagrams not echoed because their source was over --echo-rate.</param>
/// <param name="ServerDrops">Dropped by the UDP server after receiving, by reason (queue full, truncated, at stop).</param>
/// <param name="SendErrors">Echoes the kernel refused.</param>
/// <param name="KernelDrops">Dropped by the kernel because the receive buffer was full; null where the OS does not say.</param>
/// <param name="TcpConnections">TCP connections accepted.</param>
/// <param name="TcpRefused">TCP connections closed at once because <see cref="EchoService.MaxTcpConnections"/> were open.</param>
/// <param name="TcpBytesEchoed">Bytes written back over TCP.</param>
internal readonly record struct EchoTotals(
    long UdpReceived,
    long UdpEchoed,
    long UdpBytesEchoed,
    long RateLimited,
    DatagramDropCounts ServerDrops,
    long SendErrors,
    long? KernelDrops,
    long TcpConnections,
    long TcpRefused,
    long TcpBytesEchoed)
{
    /// <summary>Reads the totals from the UDP server, its handler and the TCP counts.</summary>
    public static EchoTotals From(DatagramServerStatistics udp, long rateLimited, long tcpConnections, long tcpRefused, long tcpBytes) =>
        new(udp.DatagramsReceived, udp.DatagramsSent, udp.BytesSent, rateLimited, udp.DroppedByReason,
            udp.SendErrors, udp.KernelDrops, tcpConnections, tcpRefused, tcpBytes);

    /// <summary>Every drop, all reasons.</summary>
    public long Dropped => RateLimited + ServerDrops.Total + SendErrors + (KernelDrops ?? 0) + TcpRefused;

    public static EchoTotals operator -(EchoTotals a, EchoTotals b) => new(
        a.UdpReceived - b.UdpReceived, a.UdpEchoed - b.UdpEchoed, a.UdpBytesEchoed - b.UdpBytesEchoed, a.RateLimited - b.RateLimited,
        a.ServerDrops - b.ServerDrops, a.SendErrors - b.SendErrors, a.KernelDrops - b.KernelDrops,
        a.TcpConnections - b.TcpConnections, a.TcpRefused - b.TcpRefused, a.TcpBytesEchoed - b.TcpBytesEchoed);
}
