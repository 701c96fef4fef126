namespace Salvo.Perf.Soak;

/// <summary>
/// The Theil-Sen slope of a series: the median of the slopes between every two points. Unlike a least-squares
/// fit it ignores outliers (up to 29 % of the points), so one sample taken while buffers were in flight does not
/// tilt it.
/// </summary>
internal static class TheilSen
{
    /// <summary>Points used at most: an even thinning keeps a day of one-second samples at 20,000 pairs.</summary>
    public const int MaxPoints = 200;

    /// <summary>The slope in value units per second; 0 for fewer than two points.</summary>
    public static double Slope(IReadOnlyList<(double Second, double Value)> points)
    {
        var thinned = Thin(points);
        var slopes = new List<double>(thinned.Count * (thinned.Count - 1) / 2);
        for (var i = 0; i < thinned.Count; i++)
        {
            for (var j = i + 1; j < thinned.Count; j++)
            {
                var dt = thinned[j].Second - thinned[i].Second;
                if (dt > 0)
                {
                    slopes.Add((thinned[j].Value - thinned[i].Value) / dt);
                }
            }
        }

        if (slopes.Count == 0)
        {
            return 0;
        }

        slopes.Sort();
        var middle = slopes.Count / 2;
        return slopes.Count % 2 == 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2;
    }

    private static IReadOnlyList<(double Second, double Value)> Thin(IReadOnlyList<(double Second, double Value)> points)
    {
        if (points.Count <= MaxPoints)
        {
            return points;
        }

        var step = (points.Count - 1) / (double)(MaxPoints - 1);
        return Enumerable.Range(0, MaxPoints).Select(i => points[(int)Math.Round(i * step)]).ToArray();
    }
}
