namespace Salvo.Perf.Rr;

/// <summary>
/// Decides when an rr warm-up ends: no sooner than the minimum the user asked for, and then once the JIT has compiled
/// no method for <c>idle</c> nanoseconds, or at the latest end. At one request in flight on one core, runs measured
/// 0.5 s after start read 39,307 requests/s with p99 74 us (medians of 6 rounds), and runs measured once the JIT had
/// settled 47,056 and 43 us, level with C's ppserver/ppclient placed the same way (docs/benchmarks.md): the difference
/// was tiered compilation (tier 1, on-stack replacement, the instrumented tier) of the hot loops, 10 % of the core's
/// samples in the second second and none in the third. A server's steady state is what rr is for, so the window waits for it;
/// the report says how long the warm-up took and how many methods the JIT still compiled while measuring.
/// </summary>
internal sealed class JitSettledWarmup
{
    private readonly long _minimumEndNanoseconds;
    private readonly long _idleNanoseconds;
    private readonly long _latestEndNanoseconds;
    private long _lastCount = -1;
    private long _lastChangeNanoseconds;

    /// <param name="startNanoseconds">When the run started (monotonic ns).</param>
    /// <param name="minimumNanoseconds">The shortest warm-up (--warmup).</param>
    /// <param name="idleNanoseconds">How long the JIT must have compiled nothing (--warmup-jit-idle).</param>
    /// <param name="mostNanoseconds">The longest warm-up, whatever the JIT does.</param>
    public JitSettledWarmup(long startNanoseconds, long minimumNanoseconds, long idleNanoseconds, long mostNanoseconds)
    {
        _minimumEndNanoseconds = startNanoseconds + minimumNanoseconds;
        _idleNanoseconds = idleNanoseconds;
        _latestEndNanoseconds = startNanoseconds + Math.Max(minimumNanoseconds, mostNanoseconds);
        _lastChangeNanoseconds = startNanoseconds;
    }

    /// <summary>Whether the JIT was still compiling when the warm-up ended (it ended at the latest end).</summary>
    public bool EndedBusy { get; private set; }

    /// <summary>
    /// Whether the warm-up is over at <paramref name="nowNanoseconds"/>, given the methods the JIT has compiled so far
    /// (<see cref="System.Runtime.JitInfo.GetCompiledMethodCount"/>); call it at a steady pace.
    /// </summary>
    public bool IsOver(long nowNanoseconds, long compiledMethods)
    {
        if (compiledMethods != _lastCount)
        {
            _lastCount = compiledMethods;
            _lastChangeNanoseconds = nowNanoseconds;
        }

        if (nowNanoseconds < _minimumEndNanoseconds)
        {
            return false;
        }

        if (nowNanoseconds - _lastChangeNanoseconds >= _idleNanoseconds)
        {
            return true;
        }

        EndedBusy = nowNanoseconds >= _latestEndNanoseconds;
        return EndedBusy;
    }
}
