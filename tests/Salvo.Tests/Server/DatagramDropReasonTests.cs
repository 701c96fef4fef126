using Salvo.Server;
using Salvo.Tests.Architecture;

namespace Salvo.Tests.Server;

/// <summary>
/// Every server drop reason is counted, printed and documented: a new <see cref="DatagramDropReason"/> needs only the
/// enum member, the line that counts it, and its row in docs/server.md.
/// </summary>
public sealed class DatagramDropReasonTests
{
    public static TheoryData<DatagramDropReason> Reasons() => [.. Enum.GetValues<DatagramDropReason>()];

    [Theory]
    [MemberData(nameof(Reasons))]
    public void EachReason_HasItsOwnCounter(DatagramDropReason reason)
    {
        var counts = new long[DatagramDropCounts.Slots];
        counts[(int)reason] = 7;

        var drops = new DatagramDropCounts(counts);

        Assert.Equal(7, drops[reason]);
        Assert.Equal(7, drops.Total);
        Assert.All(DatagramDropCounts.Reasons.Where(other => other != reason), other => Assert.Equal(0, drops[other]));
    }

    [Theory]
    [MemberData(nameof(Reasons))]
    public void EachReason_HasADistinctPrintedName(DatagramDropReason reason)
    {
        var name = DatagramDropCounts.NameOf(reason);

        Assert.Matches("^[a-z]+(_[a-z]+)*$", name);
        Assert.Single(DatagramDropCounts.Reasons, other => DatagramDropCounts.NameOf(other) == name);
    }

    [Theory]
    [MemberData(nameof(Reasons))]
    public void EachReason_HasARowInTheServerDocs(DatagramDropReason reason)
    {
        var docs = File.ReadAllText(Path.Combine(SourceTree.RepositoryRoot(), "docs", "server.md"));

        Assert.Contains($"| `{reason}` | `{DatagramDropCounts.NameOf(reason)}` |", docs, StringComparison.Ordinal);
    }

    [Fact]
    public void Reasons_HaveExplicitValuesFromOne()
    {
        Assert.Equal(Enumerable.Range(1, DatagramDropCounts.Reasons.Count), DatagramDropCounts.Reasons.Select(reason => (int)reason));
    }

    [Fact]
    public void Counts_AddAndSubtractReasonByReason()
    {
        var a = new DatagramDropCounts([0, 5, 1, 0]);
        var b = new DatagramDropCounts([0, 2, 0, 3]);

        Assert.Equal(new DatagramDropCounts([0, 7, 1, 3]), a + b);
        Assert.Equal(new DatagramDropCounts([0, 3, 1, -3]), a - b);
        Assert.Equal(a, a + default(DatagramDropCounts));
        Assert.Equal("queue_full=7, truncated=1, stopped=3", (a + b).ToString());
    }
}
