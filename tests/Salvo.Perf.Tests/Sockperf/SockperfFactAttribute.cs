namespace Salvo.Perf.Tests.Sockperf;

/// <summary>A fact that runs the stock <c>sockperf</c> binary; skipped with the reason where it is not on PATH.</summary>
public sealed class SockperfFactAttribute : FactAttribute
{
    public SockperfFactAttribute()
    {
        if (StockSockperf.Path is null)
        {
            Skip = "sockperf is not on PATH (Debian/Ubuntu: apt-get install sockperf).";
        }
    }
}

/// <summary>A theory that runs the stock <c>sockperf</c> binary; skipped with the reason where it is not on PATH.</summary>
public sealed class SockperfTheoryAttribute : TheoryAttribute
{
    public SockperfTheoryAttribute()
    {
        if (StockSockperf.Path is null)
        {
            Skip = "sockperf is not on PATH (Debian/Ubuntu: apt-get install sockperf).";
        }
    }
}
