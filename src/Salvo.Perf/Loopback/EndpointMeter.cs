using System.Diagnostics;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Counts one end's datagrams and, the first time it is called after the warm-up ends and after the
/// measured window ends, snapshots its counters, its thread's CPU time and its thread's allocations.
/// Written by the end's own thread; the totals may be read by others for progress.
/// </summary>
internal sealed class EndpointMeter(long warmupEndTimestamp, long measureEndTimestamp)
{
    private long _datagrams;
    private long _bytes;

    /// <summary>Datagrams counted in all.</summary>
    public long Datagrams => Volatile.Read(ref _datagrams);

    /// <summary>Payload bytes counted in all.</summary>
    public long Bytes => Volatile.Read(ref _bytes);

    /// <summary>When the last datagram was counted (Stopwatch timestamp).</summary>
    public long LastActivity { get; private set; }

    /// <summary>The snapshot at the start of the measured window, once taken.</summary>
    public MeterSnapshot? Start { get; private set; }

    /// <summary>The snapshot at the end of the measured window, once taken.</summary>
    public MeterSnapshot? End { get; private set; }

    /// <summary>Whether the measured window has ended for this end.</summary>
    public bool IsOver => End is not null;

    /// <summary>Counts datagrams moved by one call.</summary>
    public void Count(int datagrams, long bytes)
    {
        Volatile.Write(ref _datagrams, _datagrams + datagrams);
        Volatile.Write(ref _bytes, _bytes + bytes);
        LastActivity = Observe();
    }

    /// <summary>Checks the clock (call when idle too) and takes a due snapshot; returns the timestamp.</summary>
    public long Observe()
    {
        var now = Stopwatch.GetTimestamp();
        if (End is null && now >= warmupEndTimestamp)
        {
            if (Start is null)
            {
                Start = Take(now);
            }
            else if (now >= measureEndTimestamp)
            {
                End = Take(now);
            }
        }

        return now;
    }

    /// <summary>Takes any snapshot still missing (an end that stopped early).</summary>
    public void Finish()
    {
        var now = Stopwatch.GetTimestamp();
        Start ??= Take(now);
        End ??= Take(now);
    }

    private MeterSnapshot Take(long now) =>
        new(now, _datagrams, _bytes, CpuClock.CurrentThread(), GC.GetAllocatedBytesForCurrentThread());
}

/// <summary>One end's counters at a moment.</summary>
/// <param name="Timestamp">Stopwatch timestamp.</param>
/// <param name="Datagrams">Datagrams counted so far.</param>
/// <param name="Bytes">Payload bytes counted so far.</param>
/// <param name="Cpu">The end's thread CPU time (process-wide where no thread clock exists).</param>
/// <param name="AllocatedBytes">Bytes allocated by the end's thread so far.</param>
internal readonly record struct MeterSnapshot(long Timestamp, long Datagrams, long Bytes, TimeSpan Cpu, long AllocatedBytes);
