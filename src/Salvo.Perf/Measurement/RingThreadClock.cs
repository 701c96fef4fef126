using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Measurement;

/// <summary>
/// CPU time of the library's io_uring engine threads (named <see cref="DatagramSocket.IoUringThreadNamePrefix"/> and a
/// number): on the IoUring backend they do the receive side's kernel work (the multishot recvmsg runs in their
/// io_uring_enter) and hand batches to the receiving thread, so a receiver's CPU is its own thread's plus theirs. Read
/// from /proc/self/task/TID/schedstat (nanoseconds on CPU, first field); zero where there is no such file or no such thread.
/// </summary>
internal static class RingThreadClock
{
    public static TimeSpan Read()
    {
        long nanoseconds = 0;
        foreach (var (name, schedstat) in ProcFiles.SelfThreads())
        {
            // A thread that ended while being read, or a kernel without schedstat, counts nothing.
            if (name is not null && schedstat is not null && name.StartsWith(DatagramSocket.IoUringThreadNamePrefix, StringComparison.Ordinal)
                && long.TryParse(schedstat.AsSpan(0, Math.Max(0, schedstat.IndexOf(' ', StringComparison.Ordinal))), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var onCpu))
            {
                nanoseconds += onCpu;
            }
        }

        return TimeSpan.FromTicks(nanoseconds / 100);
    }
}
