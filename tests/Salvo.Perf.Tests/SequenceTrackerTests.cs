using Salvo.Perf.Protocol;

namespace Salvo.Perf.Tests;

public sealed class SequenceTrackerTests
{
    [Fact]
    public void Record_GapsDuplicatesAndReordering_CountsEachExactly()
    {
        var tracker = new SequenceTracker();

        // 5 and 8 never arrive; 3 arrives after 4 (reordered); 3 and 6 arrive twice; 2 arrives after 6.
        foreach (var sequence in new ulong[] { 0, 1, 4, 3, 3, 6, 2, 6, 7, 9 })
        {
            tracker.Record(sequence, 0, 0);
        }

        Assert.Equal(10, tracker.Received);
        Assert.Equal(8, tracker.Unique);
        Assert.Equal(2, tracker.Duplicates);
        Assert.Equal(2, tracker.OutOfOrder);
        Assert.Equal(9, tracker.Highest);
        Assert.Equal(2, tracker.Lost);
    }

    [Fact]
    public void LostAgainst_SenderSentMoreThanArrived_CountsTheTailToo()
    {
        var tracker = new SequenceTracker();
        foreach (var sequence in new ulong[] { 0, 1, 2, 4 })
        {
            tracker.Record(sequence, 0, 0);
        }

        Assert.Equal(1, tracker.Lost);
        Assert.Equal(4, tracker.LostAgainst(8));
    }

    [Fact]
    public void Record_LateArrivalFillsGap_LossGoesBackDown()
    {
        var tracker = new SequenceTracker();
        tracker.Record(0, 0, 0);
        tracker.Record(2, 0, 0);
        Assert.Equal(1, tracker.Lost);

        tracker.Record(1, 0, 0);

        Assert.Equal(0, tracker.Lost);
        Assert.Equal(1, tracker.OutOfOrder);
        Assert.Equal(0, tracker.Duplicates);
    }

    [Fact]
    public void Record_DuplicateAfterWindowAdvanced_IsStillRecognisedWithinWindow()
    {
        var tracker = new SequenceTracker();
        tracker.Record(10, 0, 0);
        tracker.Record(SequenceTracker.Window + 5, 0, 0);

        tracker.Record(10, 0, 0);

        Assert.Equal(1, tracker.Duplicates);
    }

    [Fact]
    public void Record_NumberReusingAnOldSlot_IsNotMistakenForDuplicate()
    {
        var tracker = new SequenceTracker();
        tracker.Record(3, 0, 0);

        // Same slot as 3 in the window ring, one window later: new, not a duplicate.
        tracker.Record(SequenceTracker.Window + 3, 0, 0);

        Assert.Equal(0, tracker.Duplicates);
        Assert.Equal(2, tracker.Unique);
    }

    [Fact]
    public void Jitter_ConstantTransit_IsZero()
    {
        var tracker = new SequenceTracker();
        for (ulong i = 0; i < 100; i++)
        {
            tracker.Record(i, (long)i * 1000, ((long)i * 1000) + 500);
        }

        Assert.Equal(0, tracker.JitterNanoseconds);
    }

    [Fact]
    public void Jitter_OneTransitChange_IsOneSixteenthOfIt()
    {
        var tracker = new SequenceTracker();
        tracker.Record(0, 0, 1000);        // transit 1,000 ns
        tracker.Record(1, 1000, 3600);     // transit 2,600 ns: D = 1,600, J = 1,600 / 16

        Assert.Equal(100, tracker.JitterNanoseconds, 6);
    }

    [Fact]
    public void Empty_ReportsNothingLost()
    {
        var tracker = new SequenceTracker();

        Assert.Equal(-1, tracker.Highest);
        Assert.Equal(0, tracker.Lost);
        Assert.Equal(3, tracker.LostAgainst(3));
    }
}
