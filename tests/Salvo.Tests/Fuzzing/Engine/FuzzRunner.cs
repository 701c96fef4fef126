using System.Diagnostics;
using System.Globalization;
using Xunit.Abstractions;

namespace Salvo.Fuzzing;

/// <summary>What one fuzz run did, for the test output and docs/reliability.md.</summary>
internal sealed record FuzzRun(string Target, int Seed, long Iterations, TimeSpan Elapsed)
{
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"fuzz {Target}: {Iterations} iterations in {Elapsed.TotalSeconds:F2} s (seed {Seed})");
}

/// <summary>
/// Runs a fuzz body on a thread of its own, iteration after iteration, under a watchdog: an exception from the body
/// or an iteration that outlives <see cref="FuzzBudget.Watchdog"/> fails the test with the seed and the input.
/// </summary>
internal static class FuzzRunner
{
    public static FuzzRun Run(string target, long defaultIterations, Action<FuzzCase> body, ITestOutputHelper? output = null)
    {
        var budget = FuzzBudget.For(defaultIterations);
        var seed = budget.SeedFor(target);
        FuzzCase? current = null;
        var iterationStarted = Stopwatch.GetTimestamp();
        Exception? failure = null;
        long iterations = 0;
        var clock = Stopwatch.StartNew();
        var thread = new Thread(() =>
        {
            try
            {
                for (long i = 0; i < budget.Iterations && (i == 0 || clock.Elapsed < budget.Time); i++)
                {
                    var fuzzCase = new FuzzCase(target, seed, i);
                    Volatile.Write(ref iterationStarted, Stopwatch.GetTimestamp());
                    Volatile.Write(ref current, fuzzCase);
                    try
                    {
                        body(fuzzCase);
                    }
                    catch (Exception e)
                    {
                        failure = new FuzzFailureException(fuzzCase.Describe() + e, e);
                        return;
                    }

                    iterations = i + 1;
                }
            }
            catch (Exception e)
            {
                failure = e;
            }
        })
        {
            IsBackground = true, // a hung iteration cannot be aborted; it must not keep the test host alive
            Name = $"fuzz {target}",
        };
        thread.Start();
        while (!thread.Join(TimeSpan.FromMilliseconds(50)))
        {
            if (Stopwatch.GetElapsedTime(Volatile.Read(ref iterationStarted)) > FuzzBudget.Watchdog && Volatile.Read(ref current) is { } hung)
            {
                throw new FuzzFailureException($"Hang: one iteration ran over {FuzzBudget.Watchdog.TotalSeconds:F0} s.{Environment.NewLine}{hung.Describe()}");
            }
        }

        if (failure is not null)
        {
            throw failure;
        }

        var run = new FuzzRun(target, seed, iterations, clock.Elapsed);
        output?.WriteLine(run.ToString());
        return run;
    }

    /// <summary>
    /// Runs <paramref name="check"/> on every corpus input as it is, then on mutations of corpus inputs until the
    /// budget is spent.
    /// </summary>
    public static FuzzRun RunBytes(
        string target, IReadOnlyList<byte[]> corpus, Func<Random, Mutator> mutator, long defaultIterations, Action<FuzzCase> check, ITestOutputHelper? output = null)
    {
        if (corpus.Count == 0)
        {
            throw new InvalidOperationException($"The corpus of '{target}' is empty; is Fuzzing/Corpus copied to the output?");
        }

        return Run(target, Math.Max(defaultIterations, corpus.Count), fuzzCase =>
        {
            fuzzCase.Input = fuzzCase.Iteration < corpus.Count
                ? corpus[(int)fuzzCase.Iteration]
                : mutator(fuzzCase.Random).Mutate(corpus[fuzzCase.Random.Next(corpus.Count)], corpus);
            check(fuzzCase);
        }, output);
    }
}
