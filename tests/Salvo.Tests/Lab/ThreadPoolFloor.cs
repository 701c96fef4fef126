namespace Salvo.Tests.Lab;

/// <summary>
/// Gives the thread pool room for the code under test in a lab. On a 2-core machine the pool starts with 2 worker
/// threads, and the test host's own channel to the runner holds both in 1 s <c>Socket.Poll</c> calls (seen with
/// <c>perf record -e syscalls:sys_enter_poll -g</c>); anything else queued then waits for the pool to add a thread,
/// about one a second. The tunnel's TCP fallback and the message transport run their connections on the pool, so
/// in the lab their frames waited 0.8 s and pings timed out. An application's pool is not held like this.
/// </summary>
internal static class ThreadPoolFloor
{
    private const int MinimumWorkers = 8;

    public static void Raise()
    {
        ThreadPool.GetMinThreads(out var workers, out var completionPorts);
        if (workers < MinimumWorkers)
        {
            ThreadPool.SetMinThreads(MinimumWorkers, completionPorts);
        }
    }
}
