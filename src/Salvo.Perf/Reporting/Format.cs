using System.Globalization;

namespace Salvo.Perf.Reporting;

/// <summary>Number formats for tables (invariant culture, so reports read the same everywhere).</summary>
internal static class Format
{
    public static string Count(double value) => value.ToString("N0", CultureInfo.InvariantCulture);

    public static string Fixed(double value, int decimals) => value.ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);

    public static string Percent(double value) => Fixed(value, value < 10 ? 1 : 0) + " %";

    public static string Ratio(double? value) => value is { } v ? Fixed(v, 2) + "x" : "-";
}
