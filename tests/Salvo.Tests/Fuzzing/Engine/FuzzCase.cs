namespace Salvo.Fuzzing;

/// <summary>One iteration: its own random source, and the input it tried, for the failure report.</summary>
internal sealed class FuzzCase(string target, int seed, long iteration)
{
    /// <summary>Derived from the target's seed and the iteration, so that any one iteration can be replayed alone.</summary>
    public Random Random { get; } = new(unchecked((int)((uint)seed * 2654435761u) ^ (int)iteration));

    public string Target { get; } = target;

    public int Seed { get; } = seed;

    public long Iteration { get; } = iteration;

    /// <summary>The bytes under test; printed in hex when the iteration fails.</summary>
    public byte[] Input { get; set; } = [];

    /// <summary>Anything else needed to reproduce (split points, the framer's limit).</summary>
    public string? Note { get; set; }

    public string Describe() =>
        $"Fuzz target '{Target}' failed at iteration {Iteration} (seed {Seed}; rerun with {FuzzBudget.SeedVariable}={Seed}).{Environment.NewLine}" +
        $"Input ({Input.Length} bytes): {Convert.ToHexString(Input)}{Environment.NewLine}" +
        (Note is null ? string.Empty : $"{Note}{Environment.NewLine}");
}

/// <summary>A fuzz property failed; the message holds the seed, the iteration and the input in hex.</summary>
internal sealed class FuzzFailureException(string message, Exception? inner = null) : Exception(message, inner);
