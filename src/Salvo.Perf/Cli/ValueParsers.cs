using System.Globalization;

namespace Salvo.Perf.Cli;

/// <summary>Parses option values; every error message names the option.</summary>
internal static class ValueParsers
{
    /// <summary>
    /// The largest UDP payload over IPv4: 65,535 - 20 (IP) - 8 (UDP), the library's own limit, which every size option, its
    /// help and docs/cli.md quote.
    /// </summary>
    public const int MaxUdpPayload = SendBatch.DefaultMaxDatagramSize;

    /// <summary>
    /// The items of a comma-separated value, trimmed. An empty one ("64,,1380", a trailing comma) is an error rather than
    /// skipped: it is most likely a value that was meant to be there.
    /// </summary>
    public static string[] SplitList(string text, string option, out string? error)
    {
        var parts = text.Split(',', StringSplitOptions.TrimEntries);
        error = parts.Length > 1 && parts.Any(p => p.Length == 0) ? $"{option}: an empty item in '{text}'." : null;
        return error is null ? [.. parts.Where(p => p.Length > 0)] : [];
    }

    /// <summary>Parses "64,1380" into sizes between <paramref name="min"/> and 65,507.</summary>
    public static int[] ParseSizes(string text, string option, int min, out string? error)
    {
        var parts = SplitList(text, option, out error);
        if (error is not null)
        {
            return [];
        }

        if (parts.Length == 0)
        {
            error = $"{option}: expected one or more sizes in bytes, such as 64,1380.";
            return [];
        }

        var sizes = new int[parts.Length];
        for (var i = 0; i < parts.Length; i++)
        {
            if (!int.TryParse(parts[i], NumberStyles.Integer, CultureInfo.InvariantCulture, out var size))
            {
                error = $"{option}: '{parts[i]}' is not a size in bytes.";
                return [];
            }

            if (size > MaxUdpPayload)
            {
                error = $"{option}: {size} bytes is over the UDP payload limit of {CommonOptions.Number(MaxUdpPayload)} bytes.";
                return [];
            }

            if (size < min)
            {
                error = $"{option}: {size} bytes is under the minimum of {min} bytes (the test header).";
                return [];
            }

            sizes[i] = size;
        }

        return sizes;
    }

    /// <summary>Parses a comma-separated list of positive integers (parallelism levels).</summary>
    public static int[] ParseCounts(string text, string option, int max, out string? error)
    {
        var parts = SplitList(text, option, out error);
        if (error is not null)
        {
            return [];
        }

        var counts = new int[parts.Length];
        for (var i = 0; i < parts.Length; i++)
        {
            if (!int.TryParse(parts[i], NumberStyles.Integer, CultureInfo.InvariantCulture, out counts[i]) || counts[i] < 1 || counts[i] > max)
            {
                error = $"{option}: '{parts[i]}' is not a count from 1 to {max}.";
                return [];
            }
        }

        if (counts.Length == 0)
        {
            error = $"{option}: expected one or more counts, such as 1,4,16.";
        }

        return counts;
    }

    /// <summary>
    /// Parses a bit rate: a number with an optional K, M or G suffix (powers of 1000, as iperf3), for
    /// example 100M or 1.5G; 0 means unlimited. Returns bits per second.
    /// </summary>
    public static long ParseRate(string text, string option, out string? error)
    {
        error = null;
        var value = text.Trim();
        double scale = 1;
        if (value.Length > 0)
        {
            switch (char.ToUpperInvariant(value[^1]))
            {
                case 'K': scale = 1e3; value = value[..^1]; break;
                case 'M': scale = 1e6; value = value[..^1]; break;
                case 'G': scale = 1e9; value = value[..^1]; break;
                case 'T': scale = 1e12; value = value[..^1]; break;
            }
        }

        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var number)
            || double.IsNaN(number) || double.IsInfinity(number) || number < 0 || number * scale > 1e13)
        {
            error = $"{option}: '{text}' is not a rate; use bits per second with an optional K, M or G suffix (100M, 1G, 0 = unlimited).";
            return 0;
        }

        return (long)(number * scale);
    }

    /// <summary>Parses HOST:PORT (IPv6 as [addr]:port).</summary>
    public static (string Host, int Port) ParseHostPort(string text, string option)
    {
        var colon = text.LastIndexOf(':');
        if (colon <= 0 || colon == text.Length - 1
            || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.Integer, CultureInfo.InvariantCulture, out var port)
            || port is < 1 or > 65_535)
        {
            throw new CliException($"{option}: '{text}' is not HOST:PORT with a port from 1 to 65535.");
        }

        return (text[..colon].Trim('[', ']'), port);
    }

    /// <summary>Formats a rate in bits per second the iperf3 way (Kbit/s, Mbit/s, Gbit/s).</summary>
    public static string FormatBits(double bitsPerSecond) => bitsPerSecond switch
    {
        >= 1e9 => string.Create(CultureInfo.InvariantCulture, $"{bitsPerSecond / 1e9:F2} Gbit/s"),
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{bitsPerSecond / 1e6:F1} Mbit/s"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{bitsPerSecond / 1e3:F1} Kbit/s"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bitsPerSecond:F0} bit/s"),
    };
}
