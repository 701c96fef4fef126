using System.Xml.Linq;
using Salvo.Perf.Sweep;

namespace Salvo.Perf.Tests;

public sealed class SvgLineChartTests
{
    [Fact]
    public void Render_IsWellFormedSvgWithOneLinePerSeries()
    {
        var chart = new SvgLineChart("Rate <by> size & method", "datagrams/s", ["64", "1380", "65000"]);
        chart.Add("socket", [100_000, 90_000, 20_000]);
        chart.Add("salvo", [120_000, null, 25_000]);

        var svg = XDocument.Parse(chart.Render());

        XNamespace ns = "http://www.w3.org/2000/svg";
        Assert.Equal(ns + "svg", svg.Root!.Name);
        Assert.Equal(2, svg.Descendants(ns + "polyline").Count());
        Assert.Equal(5, svg.Descendants(ns + "circle").Count());
    }

    [Fact]
    public void Render_ValuesSpanningDecades_UsesALogAxisSaidInItsLabel()
    {
        var chart = new SvgLineChart("Datagrams per second", "datagrams/s", ["64", "1380"]);
        chart.Add("naive", [281_818, 230_115]);
        chart.Add("salvo-gso", [15_004_011, 4_562_065]);

        var svg = XDocument.Parse(chart.Render());

        XNamespace ns = "http://www.w3.org/2000/svg";
        var texts = svg.Descendants(ns + "text").Select(t => t.Value).ToList();
        Assert.Contains("datagrams/s (log scale)", texts);
        Assert.Contains("100k", texts);
        Assert.Contains("1M", texts);
        Assert.Contains("10M", texts);

        // On the linear axis naive's 281,818 sat within 2 % of the plot's height from zero; on the log axis
        // (100k..100M) it is a third of the way up.
        var plotBottom = 360.0 - 50;
        var plotHeight = 360.0 - 40 - 50;
        var naive = svg.Descendants(ns + "circle").First();
        var height = (plotBottom - double.Parse(naive.Attribute("cy")!.Value, System.Globalization.CultureInfo.InvariantCulture)) / plotHeight;
        Assert.InRange(height, 0.1, 0.2);
    }

    [Fact]
    public void Render_ValuesWithinOneRange_KeepsTheLinearAxis()
    {
        var chart = new SvgLineChart("Latency", "microseconds", ["1", "4"]);
        chart.Add("p50", [40, 120]);

        var texts = XDocument.Parse(chart.Render()).Descendants(XNamespace.Get("http://www.w3.org/2000/svg") + "text").Select(t => t.Value).ToList();

        Assert.Contains("microseconds", texts);
        Assert.Contains("0", texts);
    }

    [Fact]
    public void Add_WrongNumberOfValues_Throws()
    {
        var chart = new SvgLineChart("t", "y", ["a", "b"]);

        Assert.Throws<ArgumentException>(() => chart.Add("s", [1.0]));
    }

    [Theory]
    [InlineData(0, 1)]
    [InlineData(7, 8)]
    [InlineData(230_000, 250_000)]
    [InlineData(0.9, 1)]
    public void NiceScale_RoundsUpToATidyTop(double max, double top)
    {
        Assert.Equal(top, SvgLineChart.NiceScale(max).Top, 9);
    }
}
