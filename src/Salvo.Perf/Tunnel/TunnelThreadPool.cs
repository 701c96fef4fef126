namespace Salvo.Perf.Tunnel;

/// <summary>
/// The thread pool of a process that runs a tunnel ('salvo tunnel up' and 'salvo tunnel userspace', which run the
/// daemon's command in this process) does not spin when idle. A pool worker that runs out of work spins before it
/// sleeps, calling sched_yield(2) at each turn; the tunnel's data moves on its own threads, and its pool work (the
/// status file each second, timers) is a few items a second, so each item woke a worker into a spin: an idle tunnel
/// made about 1,000 sched_yield calls a second, a loaded one 0.006 a data packet on each end, and on a busy host each
/// yield hands the CPU over and comes back (docs/benchmarks.md, "The rest of the path"). The daemon, wireguard-salvo,
/// has the same setting in its runtime configuration; this process has other commands that load the pool, so here it
/// is set only for the tunnel's, before the pool's first worker reads it.
/// </summary>
internal static class TunnelThreadPool
{
    /// <summary>The runtime's setting: how many turns an idle pool worker spins before it sleeps, read once, when the pool starts its first worker.</summary>
    public const string SpinLimitSetting = "System.Threading.ThreadPool.UnfairSemaphoreSpinLimit";

    /// <summary>Sets the spin to none when <paramref name="args"/> run a tunnel; call first thing in Main, before anything uses the pool.</summary>
    public static void QuietIfTunnel(IReadOnlyList<string> args)
    {
        ArgumentNullException.ThrowIfNull(args);
        for (var i = 0; i + 1 < args.Count; i++)
        {
            if (args[i] == "tunnel" && args[i + 1] is "up" or "userspace")
            {
                AppContext.SetData(SpinLimitSetting, 0);
                return;
            }
        }
    }
}
