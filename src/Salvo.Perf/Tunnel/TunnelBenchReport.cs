using Salvo.Perf.Measurement;

namespace Salvo.Perf.Tunnel;

/// <summary>What <c>salvo tunnel bench --json</c> prints.</summary>
/// <param name="Environment">Where it ran, with the load average at the start.</param>
/// <param name="Seconds">Seconds of each iperf3 run (-t).</param>
/// <param name="Rounds">Interleaved rounds; each figure is the median over them.</param>
/// <param name="Placement">Where the processes ran: no pinning, both namespaces on the same host.</param>
/// <param name="Paths">One entry per path, in the order measured within each round.</param>
/// <param name="LoadAverageAtEnd">The load average when the last round ended (the host is shared; the start is in <paramref name="Environment"/>).</param>
internal sealed record TunnelBenchReport(
    EnvironmentInfo Environment, int Seconds, int Rounds, string Placement, IReadOnlyList<TunnelBenchPath> Paths, string LoadAverageAtEnd = "");

/// <summary>One path's medians and the samples behind them.</summary>
/// <param name="Path">veth, or a tunnel named by its ends, A (the initiator and iperf3 client) first: "salvo &lt;-&gt; wireguard-go".</param>
/// <param name="TcpMbps">iperf3, one TCP stream: Mbit/s the receiver got.</param>
/// <param name="UdpMbps">iperf3 UDP, 1,300-byte datagrams, unlimited rate (-b 0): Mbit/s the receiver got.</param>
/// <param name="UdpLossPercent">The share of those UDP datagrams lost.</param>
/// <param name="PingMicroseconds">ping's median round trip, 50 echoes 10 ms apart.</param>
/// <param name="TcpSamples">Each round's TCP figure.</param>
/// <param name="UdpSamples">Each round's UDP figure.</param>
/// <param name="PingSamples">Each round's ping figure.</param>
/// <param name="TcpCpuSecondsPerGigabit">CPU seconds (user + system) both tunnel processes spent per gigabit of the TCP run; null for the veth.</param>
/// <param name="TcpSyscallsPerPacket">System calls of both tunnel processes per MSS-sized TCP packet carried; null for the veth or without perf.</param>
/// <param name="UdpSustainedMbps">The highest UDP rate (1,300 B) tried that arrived with under 1 % loss (from the unlimited run's delivered rate, 25 % up or 20 % down a step, five tries); 0 when none did.</param>
/// <param name="UdpSustainedLossPercent">The loss at that rate.</param>
internal sealed record TunnelBenchPath(
    string Path,
    double TcpMbps,
    double UdpMbps,
    double UdpLossPercent,
    double PingMicroseconds,
    IReadOnlyList<double> TcpSamples,
    IReadOnlyList<double> UdpSamples,
    IReadOnlyList<double> PingSamples,
    double? TcpCpuSecondsPerGigabit = null,
    double? TcpSyscallsPerPacket = null,
    double UdpSustainedMbps = 0,
    double UdpSustainedLossPercent = 0);
