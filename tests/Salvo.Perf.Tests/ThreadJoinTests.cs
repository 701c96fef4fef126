using Salvo.Perf.Threading;

namespace Salvo.Perf.Tests;

public sealed class ThreadJoinTests
{
    [Fact]
    public void JoinIfStarted_ABackgroundThreadNeverStarted_IsSkipped()
    {
        // Background | Unstarted: an equality test against Unstarted joined it and threw ThreadStateException.
        var thread = new Thread(() => { }) { IsBackground = true };

        Assert.Null(Record.Exception(() => thread.JoinIfStarted(TimeSpan.FromSeconds(1))));
    }

    [Fact]
    public void JoinIfStarted_AStartedThread_IsWaitedFor()
    {
        using var release = new ManualResetEventSlim();
        var finished = false;
        var thread = new Thread(() =>
        {
            release.Wait();
            finished = true;
        })
        { IsBackground = true };
        thread.Start();

        release.Set();
        thread.JoinIfStarted(TimeSpan.FromSeconds(30));

        Assert.True(finished);
    }
}
