using System.Text.Json.Serialization;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Loopback;

/// <summary>One measurement of one method at one payload size in one repetition.</summary>
/// <param name="Method">The method's name.</param>
/// <param name="PayloadBytes">Bytes per datagram.</param>
/// <param name="Repetition">1-based repetition.</param>
/// <param name="DatagramsPerSecond">Datagrams the receiver got per second in the measured window.</param>
/// <param name="GbitsPerSecond">Payload bits the receiver got per second, in Gbit/s.</param>
/// <param name="SentPerSecond">Datagrams the sender's kernel accepted per second.</param>
/// <param name="SenderCpuPercent">The sender thread's CPU time over the window, percent of one core.</param>
/// <param name="ReceiverCpuPercent">The receiver thread's CPU time over the window, percent of one core.</param>
/// <param name="ProcessCpuPercent">The whole process's CPU time over the window, percent of one core.</param>
/// <param name="AllocatedBytesPerDatagram">Managed bytes allocated per datagram by both ends.</param>
/// <param name="GcCount">Sum of the gen0, gen1 and gen2 collection count deltas over the window.</param>
/// <param name="Sent">Datagrams sent in the whole point (warm-up included).</param>
/// <param name="Received">Datagrams received in the whole point.</param>
/// <param name="LossPercent">(sent - received) / sent, percent.</param>
/// <param name="KernelRcvbufErrors">Delta of /proc/net/snmp Udp RcvbufErrors over the point (system-wide), or null.</param>
/// <param name="Backend">The backend the receiving Salvo socket reported (LinuxBatched or Portable); null for the plain .NET methods.</param>
internal sealed record LoopbackSample(
    string Method,
    int PayloadBytes,
    int Repetition,
    double DatagramsPerSecond,
    double GbitsPerSecond,
    double SentPerSecond,
    double SenderCpuPercent,
    double ReceiverCpuPercent,
    double ProcessCpuPercent,
    double AllocatedBytesPerDatagram,
    int GcCount,
    long Sent,
    long Received,
    double LossPercent,
    long? KernelRcvbufErrors,
    DatagramBackend? Backend = null);

/// <summary>
/// One method at one payload size over all repetitions: rates, CPU and allocation are medians over the
/// repetitions; loss and kernel drops are totals over all of them, so the two count the same datagrams
/// (a median loss of 0 % beside the sum of every repetition's drops read as a contradiction).
/// </summary>
/// <param name="Method">The method's name.</param>
/// <param name="PayloadBytes">Bytes per datagram.</param>
/// <param name="Repetitions">Samples summarised.</param>
/// <param name="DatagramsPerSecond">Median received datagrams per second.</param>
/// <param name="DatagramsPerSecondMin">Smallest sample.</param>
/// <param name="DatagramsPerSecondMax">Largest sample.</param>
/// <param name="SpreadPercent">(max - min) / median of datagrams per second, percent; null with one repetition, which has no spread (written as null, not left out).</param>
/// <param name="GbitsPerSecond">Median payload Gbit/s.</param>
/// <param name="SentPerSecond">Median sent datagrams per second.</param>
/// <param name="SenderCpuPercent">Median sender CPU, percent of one core.</param>
/// <param name="ReceiverCpuPercent">Median receiver CPU, percent of one core.</param>
/// <param name="ProcessCpuPercent">Median process CPU, percent of one core.</param>
/// <param name="AllocatedBytesPerDatagram">Median bytes allocated per datagram.</param>
/// <param name="GcCount">Median GC count per window.</param>
/// <param name="LossPercent">(sent - received) / sent over all repetitions together, percent.</param>
/// <param name="KernelRcvbufErrors">Sum of RcvbufErrors deltas over all repetitions, or null when unknown.</param>
/// <param name="RatioToSocket">Median datagrams/s over the socket method's at the same size, or null.</param>
/// <param name="RatioToNaive">Median datagrams/s over the naive method's at the same size, or null.</param>
/// <param name="CpuScope">"thread" when CPU is per end, "process" when only the process total was readable.</param>
/// <param name="AllocationScope">"thread" (per-end counters) or "process" (async methods).</param>
/// <param name="Backend">The backend the Salvo sockets reported (LinuxBatched or Portable); null for the plain .NET methods.</param>
/// <param name="WideSpread">Whether <paramref name="SpreadPercent"/> is over <see cref="LoopbackWarnings.WideSpreadPercent"/>: the median is not to be trusted.</param>
/// <param name="SocketBaselineCollapsed">Whether the socket row at this size collapsed (<see cref="LoopbackWarnings.CollapsedBaselines"/>), so <paramref name="RatioToSocket"/> is not to be trusted.</param>
/// <param name="NaiveBaselineCollapsed">The same for the naive row and <paramref name="RatioToNaive"/>.</param>
internal sealed record LoopbackResult(
    string Method,
    int PayloadBytes,
    int Repetitions,
    double DatagramsPerSecond,
    double DatagramsPerSecondMin,
    double DatagramsPerSecondMax,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? SpreadPercent,
    double GbitsPerSecond,
    double SentPerSecond,
    double SenderCpuPercent,
    double ReceiverCpuPercent,
    double ProcessCpuPercent,
    double AllocatedBytesPerDatagram,
    double GcCount,
    double LossPercent,
    long? KernelRcvbufErrors,
    double? RatioToSocket,
    string CpuScope,
    string AllocationScope,
    DatagramBackend? Backend,
    double? RatioToNaive = null,
    bool WideSpread = false,
    bool SocketBaselineCollapsed = false,
    bool NaiveBaselineCollapsed = false)
{
    /// <summary>
    /// Summaries per (method, payload) in first-seen order, with the ratios to both baselines and the flags that say
    /// which figures are not to be trusted.
    /// </summary>
    public static IReadOnlyList<LoopbackResult> Summarize(IEnumerable<LoopbackSample> samples, IReadOnlyList<ILoopbackMethod> methods)
    {
        var groups = samples.GroupBy(s => (s.Method, s.PayloadBytes)).ToList();
        var socket = BaselineRates(groups, LoopbackMethods.Baseline);
        var naive = BaselineRates(groups, LoopbackMethods.NaiveBaseline);
        var cpuScope = CpuClock.HasThreadClock ? "thread" : "process";
        var results = groups.Select(g =>
        {
            var rate = Spread.Of(g.Select(s => s.DatagramsPerSecond));
            var isAsync = methods.FirstOrDefault(m => m.Name == g.Key.Method)?.IsAsync ?? false;
            var kernel = g.Any(s => s.KernelRcvbufErrors is null) ? (long?)null : g.Sum(s => s.KernelRcvbufErrors!.Value);
            double? spread = g.Count() > 1 ? rate.Percent : null;
            return new LoopbackResult(
                g.Key.Method,
                g.Key.PayloadBytes,
                g.Count(),
                rate.Median,
                rate.Min,
                rate.Max,
                spread,
                Median(g, s => s.GbitsPerSecond),
                Median(g, s => s.SentPerSecond),
                Median(g, s => s.SenderCpuPercent),
                Median(g, s => s.ReceiverCpuPercent),
                Median(g, s => s.ProcessCpuPercent),
                Median(g, s => s.AllocatedBytesPerDatagram),
                Median(g, s => s.GcCount),
                TotalLossPercent(g),
                kernel,
                Ratio(rate.Median, socket, g.Key.PayloadBytes),
                cpuScope,
                isAsync ? "process" : "thread",
                g.First().Backend,
                Ratio(rate.Median, naive, g.Key.PayloadBytes),
                spread > LoopbackWarnings.WideSpreadPercent);
        }).ToList();

        var collapsed = LoopbackWarnings.CollapsedBaselines(results);
        return results.Select(r => r with
        {
            SocketBaselineCollapsed = collapsed.Any(c => c.Baseline == LoopbackMethods.Baseline && c.PayloadBytes == r.PayloadBytes),
            NaiveBaselineCollapsed = collapsed.Any(c => c.Baseline == LoopbackMethods.NaiveBaseline && c.PayloadBytes == r.PayloadBytes),
        }).ToList();
    }

    private static Dictionary<int, double> BaselineRates(IEnumerable<IGrouping<(string Method, int PayloadBytes), LoopbackSample>> groups, string baseline) => groups
        .Where(g => g.Key.Method == baseline)
        .ToDictionary(g => g.Key.PayloadBytes, g => Spread.Of(g.Select(s => s.DatagramsPerSecond)).Median);

    private static double? Ratio(double rate, Dictionary<int, double> baseline, int payloadBytes) =>
        baseline.TryGetValue(payloadBytes, out var b) && b > 0 ? rate / b : null;

    private static double TotalLossPercent(IEnumerable<LoopbackSample> samples)
    {
        var sent = samples.Sum(s => s.Sent);
        var received = samples.Sum(s => s.Received);
        return sent == 0 ? 0 : 100.0 * Math.Max(0, sent - received) / sent;
    }

    private static double Median(IEnumerable<LoopbackSample> samples, Func<LoopbackSample, double> value) =>
        Spread.Of(samples.Select(value)).Median;
}

/// <summary>How a loopback run was set up.</summary>
/// <param name="Methods">Methods in run order.</param>
/// <param name="PayloadBytes">Payload sizes.</param>
/// <param name="DurationSeconds">Measured seconds per point.</param>
/// <param name="WarmupSeconds">Unmeasured seconds before each point's window.</param>
/// <param name="Repetitions">Rounds over all methods and sizes.</param>
/// <param name="Pinned">Whether the sender and receiver threads were pinned.</param>
/// <param name="SenderCpu">The sender's CPU when pinned.</param>
/// <param name="ReceiverCpu">The receiver's CPU when pinned.</param>
/// <param name="SocketBufferBytes">SO_RCVBUF/SO_SNDBUF asked for.</param>
/// <param name="PinNote">Why pinning was not done, when it was not.</param>
/// <param name="Address">The loopback address both ends bound (-B): 127.0.0.1 or ::1.</param>
/// <param name="Backend">The backend asked for with --backend (Auto, LinuxBatched or Portable).</param>
/// <param name="Connected">Whether the senders were connected to the receiver (--connect).</param>
internal sealed record LoopbackSettings(
    IReadOnlyList<string> Methods,
    IReadOnlyList<int> PayloadBytes,
    double DurationSeconds,
    double WarmupSeconds,
    int Repetitions,
    bool Pinned,
    int? SenderCpu,
    int? ReceiverCpu,
    int SocketBufferBytes,
    string? PinNote,
    string Address,
    DatagramBackend Backend = DatagramBackend.Auto,
    bool Connected = false);

/// <summary>The JSON document of <c>salvo loopback --json</c>.</summary>
/// <param name="Command">"loopback".</param>
/// <param name="Environment">Where it ran.</param>
/// <param name="Settings">How it ran.</param>
/// <param name="Results">Per method and size: medians, and loss and drop totals.</param>
/// <param name="Samples">Every point.</param>
/// <param name="LoadAverageAtEnd">The 1, 5 and 15 minute load averages when the last point ended (the start is in <paramref name="Environment"/>), or null where the OS has none.</param>
/// <param name="CutShort">True when a stop signal ended the run before every point was measured (the document holds those measured); absent otherwise.</param>
internal sealed record LoopbackReport(
    string Command,
    EnvironmentInfo Environment,
    LoopbackSettings Settings,
    IReadOnlyList<LoopbackResult> Results,
    IReadOnlyList<LoopbackSample> Samples,
    string? LoadAverageAtEnd = null,
    bool? CutShort = null)
{
    /// <summary>Whether the 1-minute load average at the end is far from what the start and this run's own threads predict (<see cref="LoopbackWarnings.LoadAverageMoved"/>).</summary>
    public bool LoadAverageChanged => LoopbackWarnings.LoadAverageMoved(this);

    /// <summary>One line per reason some figures are not to be trusted: wide spreads, collapsed baselines, a load average that moved.</summary>
    public IReadOnlyList<string> Warnings => LoopbackWarnings.For(this);
}
