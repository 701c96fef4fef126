using Salvo.Tests.Architecture;

namespace Salvo.Docs.Tests;

/// <summary>What <c>dotnet test</c> prints: the README promises that a skipped test says why.</summary>
public sealed class TestOutputTests
{
    [SkippedWhenProbedFact]
    public void DotnetTest_ASkippedTest_PrintsItsReason()
    {
        // This same test, run again by dotnet test as a reader runs it, is skipped there (the probe variable is set).
        var name = $"{typeof(TestOutputTests).FullName}.{nameof(DotnetTest_ASkippedTest_PrintsItsReason)}";
        var root = SourceTree.RepositoryRoot();
        var (exitCode, output) = DotnetCli.Run(
            root,
            ["test", "tests/Salvo.Docs.Tests", "-c", DotnetCli.Configuration, "--no-build", "--filter", $"FullyQualifiedName={name}"],
            new Dictionary<string, string> { [SkippedWhenProbedFactAttribute.Variable] = "1" });

        Assert.True(exitCode == 0, output);
        Assert.True(output.Contains(SkippedWhenProbedFactAttribute.Reason, StringComparison.Ordinal), output);

        // .ci/run adds up these counts from every test assembly's summary.
        Assert.Matches(@"Skipped: +1\b", output);
    }

    /// <summary>Skipped with <see cref="Reason"/> when <see cref="Variable"/> is set, else an ordinary fact.</summary>
    private sealed class SkippedWhenProbedFactAttribute : FactAttribute
    {
        public const string Variable = "SALVO_SKIP_REASON_PROBE";

        public const string Reason = "Skipped on purpose: the probe that dotnet test prints a skipped test's reason.";

        public SkippedWhenProbedFactAttribute()
        {
            if (Environment.GetEnvironmentVariable(Variable) == "1")
            {
                Skip = Reason;
            }
        }
    }
}
