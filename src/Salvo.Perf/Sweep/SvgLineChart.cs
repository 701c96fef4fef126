using System.Globalization;
using System.Net;
using System.Text;

namespace Salvo.Perf.Sweep;

/// <summary>
/// A small SVG line chart over categorical x values (payload sizes, parallelism levels): axes with
/// rounded ticks, one coloured line with point markers per series, and a legend. When the values span
/// more than <see cref="LogScaleRatio"/> the y axis is logarithmic (ticks at powers of ten, "log scale" in
/// its label). No scripts, no external resources, so the HTML report stays self-contained.
/// </summary>
internal sealed class SvgLineChart(string title, string yLabel, IReadOnlyList<string> xLabels)
{
    private const int Width = 760;
    private const int Height = 360;
    private const int Left = 80;
    private const int Right = 150;
    private const int Top = 40;
    private const int Bottom = 50;

    /// <summary>
    /// Largest / smallest positive value above which the y axis goes logarithmic: on a linear axis the
    /// smaller series then lie flat along zero (loopback at 64 B: salvo-gso 15,004,011 datagrams/s against
    /// 281,818 for naive, a factor of 53, in docs/benchmarks.md).
    /// </summary>
    public const double LogScaleRatio = 20;

    private static readonly string[] Palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

    private readonly List<(string Name, double?[] Values)> _series = [];

    /// <summary>Adds a line; null values leave a gap.</summary>
    public void Add(string name, IReadOnlyList<double?> values)
    {
        if (values.Count != xLabels.Count)
        {
            throw new ArgumentException($"Series '{name}' has {values.Count} values for {xLabels.Count} x labels.", nameof(values));
        }

        _series.Add((name, values.ToArray()));
    }

    /// <summary>The chart as an &lt;svg&gt; element.</summary>
    public string Render()
    {
        var all = _series.SelectMany(s => s.Values).Where(v => v is not null).Select(v => v!.Value).ToList();
        var max = all.DefaultIfEmpty(0).Max();
        var minPositive = all.Where(v => v > 0).DefaultIfEmpty(0).Min();
        var logarithmic = minPositive > 0 && max / minPositive > LogScaleRatio;
        var plotWidth = Width - Left - Right;
        var plotHeight = Height - Top - Bottom;
        double X(int i) => Left + (xLabels.Count == 1 ? plotWidth / 2.0 : i * plotWidth / (double)(xLabels.Count - 1));
        var (ticks, fraction) = logarithmic ? LogScale(minPositive, max) : LinearScale(max);
        double Y(double v) => Top + plotHeight - (fraction(v) * plotHeight);

        var svg = new StringBuilder();
        svg.Append(Invariant($"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" font-family=\"sans-serif\" font-size=\"12\">"));
        svg.Append(Invariant($"<text x=\"{Width / 2}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{Escape(title)}</text>"));
        foreach (var v in ticks)
        {
            var y = Y(v);
            svg.Append(Invariant($"<line x1=\"{Left}\" y1=\"{y:F1}\" x2=\"{Left + plotWidth}\" y2=\"{y:F1}\" stroke=\"#ddd\"/>"));
            svg.Append(Invariant($"<text x=\"{Left - 6}\" y=\"{y + 4:F1}\" text-anchor=\"end\">{Escape(Short(v))}</text>"));
        }

        for (var i = 0; i < xLabels.Count; i++)
        {
            svg.Append(Invariant($"<text x=\"{X(i):F1}\" y=\"{Top + plotHeight + 18}\" text-anchor=\"middle\">{Escape(xLabels[i])}</text>"));
        }

        svg.Append(Invariant($"<line x1=\"{Left}\" y1=\"{Top + plotHeight}\" x2=\"{Left + plotWidth}\" y2=\"{Top + plotHeight}\" stroke=\"#333\"/>"));
        svg.Append(Invariant($"<line x1=\"{Left}\" y1=\"{Top}\" x2=\"{Left}\" y2=\"{Top + plotHeight}\" stroke=\"#333\"/>"));
        svg.Append(Invariant($"<text transform=\"translate(16 {Top + (plotHeight / 2)}) rotate(-90)\" text-anchor=\"middle\">{Escape(logarithmic ? $"{yLabel} (log scale)" : yLabel)}</text>"));

        for (var s = 0; s < _series.Count; s++)
        {
            var (name, values) = _series[s];
            var color = Palette[s % Palette.Length];
            var points = Enumerable.Range(0, values.Length).Where(i => values[i] is not null)
                .Select(i => Invariant($"{X(i):F1},{Y(values[i]!.Value):F1}")).ToList();
            if (points.Count > 1)
            {
                svg.Append(Invariant($"<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{string.Join(' ', points)}\"/>"));
            }

            for (var i = 0; i < values.Length; i++)
            {
                if (values[i] is { } v)
                {
                    svg.Append(Invariant($"<circle cx=\"{X(i):F1}\" cy=\"{Y(v):F1}\" r=\"3\" fill=\"{color}\"><title>{Escape($"{name} {xLabels[i]}: {Short(v)}")}</title></circle>"));
                }
            }

            var legendY = Top + 10 + (s * 20);
            svg.Append(Invariant($"<rect x=\"{Left + plotWidth + 15}\" y=\"{legendY - 9}\" width=\"12\" height=\"12\" fill=\"{color}\"/>"));
            svg.Append(Invariant($"<text x=\"{Left + plotWidth + 32}\" y=\"{legendY + 1}\">{Escape(name)}</text>"));
        }

        svg.Append("</svg>");
        return svg.ToString();
    }

    /// <summary>Ticks from 0 by a tidy step, and where a value lies between 0 and the top (0..1).</summary>
    private static (IReadOnlyList<double> Ticks, Func<double, double> Fraction) LinearScale(double max)
    {
        var (top, step) = NiceScale(max);
        var ticks = new List<double>();
        for (var v = 0.0; v <= top + (step / 2); v += step)
        {
            ticks.Add(v);
        }

        return (ticks, v => v / top);
    }

    /// <summary>
    /// Ticks at the powers of ten around [<paramref name="min"/>, <paramref name="max"/>], and where a value lies
    /// between them on a log axis; 0 or less sits at the bottom (its marker's title keeps the value).
    /// </summary>
    internal static (IReadOnlyList<double> Ticks, Func<double, double> Fraction) LogScale(double min, double max)
    {
        var low = Math.Floor(Math.Log10(min));
        var high = Math.Max(low + 1, Math.Ceiling(Math.Log10(max)));
        var ticks = Enumerable.Range(0, (int)(high - low) + 1).Select(i => Math.Pow(10, low + i)).ToList();
        return (ticks, v => v <= 0 ? 0 : (Math.Log10(v) - low) / (high - low));
    }

    /// <summary>A top value and tick step of 1, 2 or 5 times a power of ten, about five ticks.</summary>
    internal static (double Top, double Step) NiceScale(double max)
    {
        if (max <= 0 || double.IsNaN(max) || double.IsInfinity(max))
        {
            return (1, 0.2);
        }

        var rough = max / 5;
        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(rough)));
        var step = (rough / magnitude) switch
        {
            <= 1 => magnitude,
            <= 2 => 2 * magnitude,
            <= 5 => 5 * magnitude,
            _ => 10 * magnitude,
        };
        return (Math.Ceiling(max / step) * step, step);
    }

    /// <summary>1.2M, 350k, 0.25: short tick labels.</summary>
    internal static string Short(double value) => Math.Abs(value) switch
    {
        >= 1e9 => Invariant($"{value / 1e9:0.##}G"),
        >= 1e6 => Invariant($"{value / 1e6:0.##}M"),
        >= 1e4 => Invariant($"{value / 1e3:0.##}k"),
        >= 100 => Invariant($"{value:0}"),
        _ => Invariant($"{value:0.###}"),
    };

    private static string Escape(string text) => WebUtility.HtmlEncode(text);

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
