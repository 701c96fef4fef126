using System.Globalization;

namespace Salvo.Fuzzing;

/// <summary>
/// How long each fuzz target runs. By default a fixed number of iterations (the same inputs on every run, so CI is
/// deterministic), stopped early after <see cref="DefaultCap"/> on a slow machine. SALVO_FUZZ_SECONDS=N runs every
/// target for N seconds instead; SALVO_FUZZ_SEED=S replaces each target's fixed seed.
/// </summary>
internal sealed record FuzzBudget(long Iterations, TimeSpan Time, int? Seed)
{
    public const string SecondsVariable = "SALVO_FUZZ_SECONDS";
    public const string SeedVariable = "SALVO_FUZZ_SEED";

    /// <summary>The most a default (iteration-counted) run of one target may take: 10 s.</summary>
    public static readonly TimeSpan DefaultCap = TimeSpan.FromSeconds(10);

    /// <summary>An iteration running longer than this is a hang: 10 s, three orders above the slowest normal one.</summary>
    public static readonly TimeSpan Watchdog = TimeSpan.FromSeconds(10);

    /// <summary>The budget for a target whose default run is <paramref name="defaultIterations"/> iterations.</summary>
    /// <exception cref="InvalidOperationException">An environment variable is not a number.</exception>
    public static FuzzBudget For(long defaultIterations)
    {
        var seed = Environment.GetEnvironmentVariable(SeedVariable) is { Length: > 0 } seedText
            ? int.TryParse(seedText, NumberStyles.Integer, CultureInfo.InvariantCulture, out var s)
                ? s
                : throw new InvalidOperationException($"{SeedVariable} must be an integer, not '{seedText}'.")
            : (int?)null;
        if (Environment.GetEnvironmentVariable(SecondsVariable) is { Length: > 0 } secondsText)
        {
            if (!double.TryParse(secondsText, NumberStyles.Float, CultureInfo.InvariantCulture, out var seconds) || seconds <= 0)
            {
                throw new InvalidOperationException($"{SecondsVariable} must be a positive number of seconds, not '{secondsText}'.");
            }

            return new FuzzBudget(long.MaxValue, TimeSpan.FromSeconds(seconds), seed);
        }

        return new FuzzBudget(defaultIterations, DefaultCap, seed);
    }

    /// <summary>A fixed seed per target (FNV-1a of its name), so that targets do not share one input sequence.</summary>
    public int SeedFor(string target)
    {
        if (Seed is { } seed)
        {
            return seed;
        }

        var hash = 2166136261u;
        foreach (var c in target)
        {
            hash = (hash ^ c) * 16777619u;
        }

        return (int)(hash & 0x7FFF_FFFF);
    }
}
