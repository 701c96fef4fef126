using Salvo.Perf.Reporting;

namespace Salvo.Perf.TestServer.Traffic;

/// <summary>What <c>salvo server</c> did with every control connection, for its totals line; safe from any thread.</summary>
internal sealed class ServerTally
{
    private long _salvoTests;
    private long _iperf3Tests;
    private long _cutShort;
    private readonly long[] _refused = new long[Enum.GetValues<Refusal>().Length];

    /// <summary>Why a connection did not get a test.</summary>
    public enum Refusal
    {
        /// <summary>A bad hello or parameters, an unsupported option, a protocol error, or a handshake not completed in time.</summary>
        BadRequest,

        /// <summary>Another client's test held the slot.</summary>
        Busy,

        /// <summary>Sent nothing, or closed before its first message.</summary>
        Silent,

        /// <summary>More connections were waiting than <see cref="ServerLimits.MaxPending"/>.</summary>
        OverLimit,
    }

    /// <summary>A test started (its client got the slot).</summary>
    public void TestStarted(ControlClientKind kind) => Interlocked.Increment(ref kind == ControlClientKind.Iperf3 ? ref _iperf3Tests : ref _salvoTests);

    /// <summary>A test ended early because the server was stopping.</summary>
    public void TestCutShort() => Interlocked.Increment(ref _cutShort);

    /// <summary>Counts one refused connection.</summary>
    public void Refused(Refusal why) => Interlocked.Increment(ref _refused[(int)why]);

    /// <summary>Connections refused for <paramref name="why"/> so far.</summary>
    public long RefusedFor(Refusal why) => Interlocked.Read(ref _refused[(int)why]);

    /// <summary>The line printed when the server stops, however it stops.</summary>
    public string TotalLine()
    {
        var salvo = Interlocked.Read(ref _salvoTests);
        var iperf3 = Interlocked.Read(ref _iperf3Tests);
        return $"server total: {Format.Count(salvo + iperf3)} test(s) ({Format.Count(salvo)} salvo, {Format.Count(iperf3)} iperf3), " +
            $"{Format.Count(Interlocked.Read(ref _cutShort))} cut short by the server stopping; connections refused: " +
            $"{Format.Count(RefusedFor(Refusal.BadRequest))} bad request, {Format.Count(RefusedFor(Refusal.Busy))} busy, " +
            $"{Format.Count(RefusedFor(Refusal.Silent))} silent, {Format.Count(RefusedFor(Refusal.OverLimit))} over the limit";
    }
}
