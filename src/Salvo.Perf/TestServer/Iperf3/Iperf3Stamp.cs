using Salvo.Perf.TestServer.Traffic;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>Stamps iperf3's data header on datagrams a <see cref="TrafficSender"/> sends.</summary>
internal static class Iperf3Stamp
{
    /// <summary>A stamp writing the wall-clock time and the counter (the sender's sequence + 1: iperf3 counts from 1).</summary>
    public static DatagramStamp For(bool counters64) => (payload, _, sequence) =>
        Iperf3Datagram.WriteHeader(payload, UnixMicroseconds(), sequence + 1, counters64);

    /// <summary>Now on the wall clock, in microseconds since 1970: iperf3 stamps gettimeofday().</summary>
    public static long UnixMicroseconds() => (DateTime.UtcNow.Ticks - DateTime.UnixEpoch.Ticks) / 10;
}
