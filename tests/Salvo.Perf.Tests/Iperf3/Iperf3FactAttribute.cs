namespace Salvo.Perf.Tests.Iperf3;

/// <summary>A fact that runs the stock iperf3 binary; skipped with the reason when it is not installed (.ci/run installs it as root).</summary>
public sealed class Iperf3FactAttribute : FactAttribute
{
    public Iperf3FactAttribute() => Skip = Iperf3Binary.SkipReason;
}

/// <summary>A theory that runs the stock iperf3 binary; skipped like <see cref="Iperf3FactAttribute"/>.</summary>
public sealed class Iperf3TheoryAttribute : TheoryAttribute
{
    public Iperf3TheoryAttribute() => Skip = Iperf3Binary.SkipReason;
}
