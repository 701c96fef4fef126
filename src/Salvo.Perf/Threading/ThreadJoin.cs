namespace Salvo.Perf.Threading;

/// <summary>Joining threads that may never have been started (a constructor failed, or Start was never reached).</summary>
internal static class ThreadJoin
{
    /// <summary>
    /// Waits up to <paramref name="timeout"/> for <paramref name="thread"/> if it was started; a thread never started
    /// is skipped. ThreadState is a set of flags (a background thread not yet started is Background | Unstarted), so
    /// comparing it with Unstarted for equality joins such a thread and throws ThreadStateException.
    /// </summary>
    public static void JoinIfStarted(this Thread thread, TimeSpan timeout)
    {
        if ((thread.ThreadState & ThreadState.Unstarted) == 0)
        {
            thread.Join(timeout);
        }
    }
}
