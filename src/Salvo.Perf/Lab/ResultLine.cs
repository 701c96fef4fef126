using System.Globalization;

namespace Salvo.Perf.Lab;

/// <summary>The machine-readable line udplimit and <c>salvo lab receive</c> end with: <c>RESULT key=value ...</c>.</summary>
internal static class ResultLine
{
    /// <summary>The last RESULT line's pairs in <paramref name="output"/>; null when there is none.</summary>
    public static Dictionary<string, string>? Find(string output)
    {
        var line = output.Split('\n').LastOrDefault(l => l.StartsWith("RESULT ", StringComparison.Ordinal));
        return line?.Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Skip(1)
            .Select(pair => pair.Split('=', 2))
            .Where(pair => pair.Length == 2)
            .GroupBy(pair => pair[0], StringComparer.Ordinal)
            .ToDictionary(group => group.Key, group => group.Last()[1], StringComparer.Ordinal);
    }

    /// <summary>The number under <paramref name="key"/>; 0 when it is missing or not a number.</summary>
    public static double Number(Dictionary<string, string> result, string key) =>
        result.TryGetValue(key, out var text) && double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) ? value : 0;
}
