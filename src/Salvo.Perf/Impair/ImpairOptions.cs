using System.Globalization;
using System.Net;

namespace Salvo.Perf.Impair;

/// <summary>What the impairment relay listens on, forwards to, and does to the datagrams in between.</summary>
internal sealed class ImpairOptions
{
    /// <summary>Where clients send (bound exactly; nothing else listens; <c>[::]</c> takes IPv4 and IPv6). Defaults to 127.0.0.1:47020.</summary>
    public IPEndPoint Listen { get; set; } = new(IPAddress.Loopback, 47_020);

    /// <summary>Where the relay forwards to (the server). Defaults to 127.0.0.1:47010.</summary>
    public IPEndPoint Forward { get; set; } = new(IPAddress.Loopback, 47_010);

    /// <summary>Chance of dropping a datagram, 0 to 1. Defaults to 0.</summary>
    public double Drop { get; set; }

    /// <summary>Chance of sending a datagram twice, 0 to 1. Defaults to 0.</summary>
    public double Duplicate { get; set; }

    /// <summary>Chance of holding a datagram back so later ones overtake it, 0 to 1. Defaults to 0.</summary>
    public double Reorder { get; set; }

    /// <summary>Later datagrams that overtake a held one before it goes, 1 to 1000. Defaults to 3.</summary>
    public int ReorderGap { get; set; } = 3;

    /// <summary>Longest a held datagram waits when fewer later ones come, 0 to 10 s. Defaults to 50 ms.</summary>
    public TimeSpan ReorderHold { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>Smallest added delay. Defaults to 0.</summary>
    public TimeSpan DelayMin { get; set; }

    /// <summary>Largest added delay (uniform between min and max), at most 10 s. Defaults to 0.</summary>
    public TimeSpan DelayMax { get; set; }

    /// <summary>Seed of the decisions; the same seed and input give the same impairments. Defaults to 1.</summary>
    public ulong Seed { get; set; } = 1;

    /// <summary>Client addresses tracked at once (one upstream socket each), 1 to 4096. Defaults to 64.</summary>
    public int MaxSessions { get; set; } = 64;

    /// <summary>A client silent this long, in both directions, is forgotten. Defaults to 60 s.</summary>
    public TimeSpan SessionIdle { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>The decider's probabilities in nanoseconds.</summary>
    public ImpairProbabilities Probabilities => new(Drop, Duplicate, Reorder, DelayMin.Ticks * 100, DelayMax.Ticks * 100);

    /// <summary>Every problem, each naming its option; empty when valid.</summary>
    public IReadOnlyList<string> GetErrors()
    {
        var errors = new List<string>();
        Probability(errors, "--drop", Drop);
        Probability(errors, "--duplicate", Duplicate);
        Probability(errors, "--reorder", Reorder);
        if (ReorderGap is < 1 or > 1000)
        {
            errors.Add($"--reorder-gap: {ReorderGap} is outside 1..1000.");
        }

        if (ReorderHold < TimeSpan.Zero || ReorderHold > TimeSpan.FromSeconds(10))
        {
            errors.Add($"--reorder-hold-ms: {ReorderHold.TotalMilliseconds.ToString(CultureInfo.InvariantCulture)} ms is outside 0..10000.");
        }

        if (DelayMin < TimeSpan.Zero || DelayMax > TimeSpan.FromSeconds(10) || DelayMin > DelayMax)
        {
            errors.Add($"--delay-ms: {DelayMin.TotalMilliseconds.ToString(CultureInfo.InvariantCulture)}..{DelayMax.TotalMilliseconds.ToString(CultureInfo.InvariantCulture)} is not a range within 0..10000 ms.");
        }

        if (MaxSessions is < 1 or > 4096)
        {
            errors.Add($"--max-sessions: {MaxSessions} is outside 1..4096.");
        }

        if (SessionIdle <= TimeSpan.Zero)
        {
            errors.Add("session idle timeout must be positive.");
        }

        if (Forward.Equals(Listen))
        {
            errors.Add("--listen and --forward are the same address.");
        }

        if (Forward.Port == 0)
        {
            errors.Add("--forward: the port must be 1 to 65535.");
        }

        if (IPAddress.Any.Equals(Forward.Address) || IPAddress.IPv6Any.Equals(Forward.Address))
        {
            errors.Add($"--forward: {Forward.Address} is not a destination; name the server's address.");
        }

        return errors;
    }

    private static void Probability(List<string> errors, string option, double value)
    {
        if (double.IsNaN(value) || value < 0 || value > 1)
        {
            errors.Add($"{option}: {value.ToString(CultureInfo.InvariantCulture)} is not a probability from 0 to 1.");
        }
    }
}
