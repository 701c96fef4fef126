namespace Salvo.Perf.Measurement;

/// <summary>The median of repeated measurements and how far they spread around it.</summary>
/// <param name="Median">The middle value (the mean of the two middle values for an even count).</param>
/// <param name="Min">The smallest value.</param>
/// <param name="Max">The largest value.</param>
internal readonly record struct Spread(double Median, double Min, double Max)
{
    /// <summary>(max - min) / median in percent; 0 for a single value or a zero median.</summary>
    public double Percent => Median == 0 ? 0 : 100.0 * (Max - Min) / Median;

    /// <summary>Summarises <paramref name="values"/>; all zero when empty.</summary>
    public static Spread Of(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        if (sorted.Length == 0)
        {
            return default;
        }

        var middle = sorted.Length / 2;
        var median = sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Spread(median, sorted[0], sorted[^1]);
    }
}
