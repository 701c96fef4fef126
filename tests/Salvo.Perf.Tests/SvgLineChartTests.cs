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
