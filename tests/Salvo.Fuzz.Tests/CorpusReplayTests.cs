namespace Salvo.Fuzz.Tests;

/// <summary>
/// Replays every seed in fuzz/corpus/TARGET/ and every past finding in fuzz/findings/TARGET/ through the same target
/// code afl-fuzz runs: each must parse or be refused the way its parser documents; any other exception fails here.
/// </summary>
public sealed class CorpusReplayTests
{
    private static readonly string s_root = Path.Combine(AppContext.BaseDirectory, "fuzz");

    public static TheoryData<string, string> StoredInputs()
    {
        var data = new TheoryData<string, string>();
        foreach (var kind in new[] { "corpus", "findings" })
        {
            var folder = Path.Combine(s_root, kind);
            if (!Directory.Exists(folder))
            {
                continue;
            }

            foreach (var target in Directory.EnumerateDirectories(folder).Order(StringComparer.Ordinal))
            {
                foreach (var file in Directory.EnumerateFiles(target).Order(StringComparer.Ordinal))
                {
                    data.Add(Path.GetFileName(target), Path.GetRelativePath(s_root, file));
                }
            }
        }

        return data;
    }

    public static TheoryData<string> Targets() => [.. FuzzTargets.All.Select(t => t.Name)];

    [Theory]
    [MemberData(nameof(StoredInputs))]
    public void Target_StoredInput_ParsesOrIsRefused(string target, string file)
    {
        var fuzzTarget = FuzzTargets.Find(target);
        Assert.True(fuzzTarget is not null, $"{file} is in a folder that names no fuzz target");

        fuzzTarget.Run(File.ReadAllBytes(Path.Combine(s_root, file)));
    }

    [Theory]
    [MemberData(nameof(Targets))]
    public void Target_Corpus_HoldsSeeds(string target)
    {
        var folder = Path.Combine(s_root, "corpus", target);

        Assert.True(Directory.Exists(folder) && Directory.EnumerateFiles(folder, "seed-*").Any(), $"fuzz/corpus/{target} has no seeds");
    }

    [Theory]
    [MemberData(nameof(Targets))]
    public void Target_SeedsFromTheEncodersNow_ParseOrAreRefused(string target)
    {
        var fuzzTarget = FuzzTargets.Find(target)!;

        foreach (var (_, bytes) in fuzzTarget.Seeds())
        {
            fuzzTarget.Run(bytes);
        }
    }
}
