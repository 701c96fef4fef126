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
        const string tasks = "/proc/self/task";
        if (!Directory.Exists(tasks))
        {
            return TimeSpan.Zero;
        }

        long nanoseconds = 0;
        foreach (var task in Directory.EnumerateDirectories(tasks))
        {
            try
            {
                if (!File.ReadAllText(Path.Combine(task, "comm")).StartsWith(DatagramSocket.IoUringThreadNamePrefix, StringComparison.Ordinal))
                {
                    continue;
                }

                var schedstat = File.ReadAllText(Path.Combine(task, "schedstat"));
                nanoseconds += long.Parse(schedstat.AsSpan(0, schedstat.IndexOf(' ', StringComparison.Ordinal)), System.Globalization.CultureInfo.InvariantCulture);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
            {
                // The thread ended while being read, or the kernel has no schedstat: count nothing for it.
            }
        }

        return TimeSpan.FromTicks(nanoseconds / 100);
    }
}
