namespace Salvo.Perf.Impair;

/// <summary>What happens to one datagram entering the relay.</summary>
/// <param name="Drop">Discard it.</param>
/// <param name="Duplicate">Send it twice, the copy right after the original.</param>
/// <param name="Hold">Hold it back so that later datagrams overtake it (reordering).</param>
/// <param name="DelayNanoseconds">Extra latency before it leaves.</param>
internal readonly record struct ImpairDecision(bool Drop, bool Duplicate, bool Hold, long DelayNanoseconds);

/// <summary>
/// The relay's dice: a pure, seeded sequence of <see cref="ImpairDecision"/>s. The same seed and
/// probabilities give the same decisions on every machine and .NET version (SplitMix64, not
/// <see cref="Random"/>, whose seeded sequence is not a compatibility promise), so a run can be repeated.
/// </summary>
internal sealed class ImpairDecider
{
    private readonly ImpairProbabilities _probabilities;
    private ulong _state;

    public ImpairDecider(ImpairProbabilities probabilities, ulong seed)
    {
        _probabilities = probabilities;
        _state = seed;
    }

    /// <summary>Decides the next datagram's fate. A dropped datagram is neither duplicated, held nor delayed.</summary>
    public ImpairDecision Next()
    {
        // Every draw is taken whatever the outcome, so one datagram's fate never shifts the next one's dice.
        var drop = NextDouble() < _probabilities.Drop;
        var duplicate = NextDouble() < _probabilities.Duplicate;
        var hold = NextDouble() < _probabilities.Reorder;
        var span = _probabilities.DelayMaxNanoseconds - _probabilities.DelayMinNanoseconds;
        var delay = _probabilities.DelayMinNanoseconds + (span > 0 ? (long)(NextDouble() * (span + 1)) : 0);
        return drop ? new ImpairDecision(true, false, false, 0) : new ImpairDecision(false, duplicate, hold, delay);
    }

    /// <summary>A uniform double in [0, 1) from the top 53 bits.</summary>
    private double NextDouble() => (NextUInt64() >> 11) * (1.0 / (1UL << 53));

    /// <summary>SplitMix64 (Steele, Lea and Flood, 2014): one add and three xor-shift-multiplies.</summary>
    private ulong NextUInt64()
    {
        var z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}

/// <summary>The probabilities and delay range the decider draws from.</summary>
/// <param name="Drop">Chance of dropping, 0 to 1.</param>
/// <param name="Duplicate">Chance of duplicating, 0 to 1.</param>
/// <param name="Reorder">Chance of holding back, 0 to 1.</param>
/// <param name="DelayMinNanoseconds">Smallest added delay.</param>
/// <param name="DelayMaxNanoseconds">Largest added delay (uniform between the two).</param>
internal readonly record struct ImpairProbabilities(double Drop, double Duplicate, double Reorder, long DelayMinNanoseconds, long DelayMaxNanoseconds);
