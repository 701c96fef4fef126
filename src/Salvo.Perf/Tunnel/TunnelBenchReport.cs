using Salvo.Perf.Measurement;

namespace Salvo.Perf.Tunnel;

/// <summary>What <c>salvo tunnel bench --json</c> prints.</summary>
/// <param name="Environment">Where it ran, with the load average at the start.</param>
/// <param name="Seconds">Seconds of each iperf3 run (-t).</param>
/// <param name="Rounds">Interleaved rounds; each figure is the median over them.</param>
/// <param name="Placement">Where the processes ran: no pinning, both namespaces on the same host.</param>
/// <param name="Paths">One entry per path, in the order measured within each round.</param>
/// <param name="LoadAverageAtEnd">The load average when the last round ended (the host is shared; the start is in <paramref name="Environment"/>).</param>
/// <param name="Interop">One TCP stream each way between Salvo and wireguard-go, from both interop tunnels; null without them.</param>
internal sealed record TunnelBenchReport(
    EnvironmentInfo Environment,
    int Seconds,
    int Rounds,
    string Placement,
    IReadOnlyList<TunnelBenchPath> Paths,
    string LoadAverageAtEnd = "",
    TunnelBenchInterop? Interop = null);

/// <summary>
/// Salvo and wireguard-go sending to each other, one TCP stream: each way's runs pooled over both interop tunnels (Salvo
/// sending is A to B in "salvo &lt;-&gt; wireguard-go" and B to A in "wireguard-go &lt;-&gt; salvo"), medians.
/// </summary>
/// <param name="SalvoSendsMbps">Salvo sending to wireguard-go: Mbit/s the receiver got.</param>
/// <param name="SalvoSendsRetransmits">Salvo sending: segments the TCP sender retransmitted per run.</param>
/// <param name="WireGuardGoSendsMbps">wireguard-go sending to Salvo: Mbit/s the receiver got.</param>
/// <param name="WireGuardGoSendsRetransmits">wireguard-go sending: segments retransmitted per run.</param>
internal sealed record TunnelBenchInterop(double SalvoSendsMbps, double SalvoSendsRetransmits, double WireGuardGoSendsMbps, double WireGuardGoSendsRetransmits)
{
    /// <summary>Pools each sending way's samples from the two interop tunnels among <paramref name="paths"/>; null when either is missing.</summary>
    public static TunnelBenchInterop? From(IReadOnlyList<TunnelBenchPath> paths)
    {
        var salvoInA = Find(paths, TunnelEnd.Salvo, TunnelEnd.WireGuardGo);
        var salvoInB = Find(paths, TunnelEnd.WireGuardGo, TunnelEnd.Salvo);
        if (salvoInA is null || salvoInB is null)
        {
            return null;
        }

        static double Median(IReadOnlyList<double>? first, IReadOnlyList<double>? second) => Spread.Of([.. first ?? [], .. second ?? []]).Median;
        return new TunnelBenchInterop(
            Median(salvoInA.TcpSamples, salvoInB.TcpReverseSamples),
            Median(salvoInA.TcpRetransmitSamples, salvoInB.TcpReverseRetransmitSamples),
            Median(salvoInA.TcpReverseSamples, salvoInB.TcpSamples),
            Median(salvoInA.TcpReverseRetransmitSamples, salvoInB.TcpRetransmitSamples));
    }

    private static TunnelBenchPath? Find(IReadOnlyList<TunnelBenchPath> paths, TunnelEnd a, TunnelEnd b)
    {
        var tunnel = BenchTunnel.All.FirstOrDefault(t => t.EndA == a && t.EndB == b && !t.OverTcp);
        return tunnel is null ? null : paths.FirstOrDefault(p => p.Path == tunnel.Name);
    }
}

/// <summary>One path's medians and the samples behind them.</summary>
/// <param name="Path">veth, or a tunnel named by its ends, A (the initiator and iperf3 client) first: "salvo &lt;-&gt; wireguard-go".</param>
/// <param name="TcpMbps">iperf3, one TCP stream from A to B: Mbit/s the receiver got.</param>
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
/// <param name="TcpRetransmits">Segments the TCP sender (in A) retransmitted per run.</param>
/// <param name="TcpReverseMbps">iperf3 -R, one TCP stream from B to A: Mbit/s the receiver got.</param>
/// <param name="TcpReverseRetransmits">Segments the sender (in B) retransmitted per reverse run.</param>
/// <param name="TcpRetransmitSamples">Each round's retransmits, A to B.</param>
/// <param name="TcpReverseSamples">Each round's reverse TCP figure.</param>
/// <param name="TcpReverseRetransmitSamples">Each round's retransmits, B to A.</param>
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
    double UdpSustainedLossPercent = 0,
    double TcpRetransmits = 0,
    double TcpReverseMbps = 0,
    double TcpReverseRetransmits = 0,
    IReadOnlyList<double>? TcpRetransmitSamples = null,
    IReadOnlyList<double>? TcpReverseSamples = null,
    IReadOnlyList<double>? TcpReverseRetransmitSamples = null);
