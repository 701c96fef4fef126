using System.Globalization;
using System.Net;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// Reads the INI-like files of <c>wg setconf</c> and <c>wg-quick</c>: an <c>[Interface]</c> section and
/// <c>[Peer]</c> sections of <c>Key = Value</c> lines, <c>#</c> comments, keys in any case, list values separated
/// by commas. Every problem names its line and key; keys this tunnel does not act on are refused rather than ignored,
/// and so is a key given twice in one section, except the lists wg(8) and wg-quick(8) say may be repeated (Address,
/// AllowedIPs), where wg would silently keep the last. The file is read into the change <c>wg setconf</c> would send
/// for it, which the returned configuration carries and a device applies as its control socket applies a <c>set</c>.
/// </summary>
public static class WireGuardConfigParser
{
    /// <summary>
    /// wg-quick(8)'s keys that wg-quick carries out itself, with resolvconf, bash and wg showconf; it strips them before
    /// handing the rest to the implementation with 'wg setconf'.
    /// </summary>
    private static readonly HashSet<string> s_wgQuickOnly = new(StringComparer.OrdinalIgnoreCase)
    {
        "DNS", "PreUp", "PostUp", "PreDown", "PostDown", "SaveConfig",
    };

    /// <summary>Reads a file.</summary>
    /// <remarks>
    /// A line at a time, as <see cref="Parse(string)"/> splits text: the whole file as one string and an array of its lines
    /// held about 600 MB at once for a million peers, every byte of it kept alive through the parse's collections.
    /// </remarks>
    public static TunnelConfiguration ParseFile(string path)
    {
        using var reader = new StreamReader(path, System.Text.Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: ConfigLines.BufferChars);
        return Parse(ConfigLines.Split(reader));
    }

    /// <summary>Reads configuration text.</summary>
    /// <exception cref="TunnelConfigurationException">The text names the line and key of the first problem.</exception>
    public static TunnelConfiguration Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        return Parse(text.Split('\n'));
    }

    private static TunnelConfiguration Parse(IEnumerable<string> lines)
    {
        var state = new ParseState();
        var empty = true;
        var lineNumber = 0;
        foreach (var text in lines)
        {
            lineNumber++;
            var line = StripComment(text).Trim();
            if (line.Length == 0)
            {
                continue;
            }

            empty = false;
            if (line.StartsWith('[') && line.EndsWith(']'))
            {
                state.BeginSection(line[1..^1].Trim(), lineNumber);
                continue;
            }

            var equals = line.IndexOf('=', StringComparison.Ordinal);
            var key = equals > 0 ? line[..equals].Trim() : string.Empty;
            if (!IsKeyName(key))
            {
                // The line is not quoted back: it may be a key with its '=' missing ("PrivateKey abc...="), and the
                // message goes to the terminal and the logs.
                throw new TunnelConfigurationException(lineNumber, null, "expected 'Key = Value' or a [Section] (the line is not shown: it may hold a key)");
            }

            var value = line[(equals + 1)..].Trim();
            if (s_wgQuickOnly.Contains(key))
            {
                throw new TunnelConfigurationException(
                    lineNumber,
                    key,
                    "is done by wg-quick itself, not by a WireGuard implementation; to have it done, run this file with wg-quick " +
                    "and Salvo as its user-space implementation: WG_QUICK_USERSPACE_IMPLEMENTATION=\"$(command -v salvo)\" wg-quick up FILE " +
                    "(docs/tunnel.md); or remove the line");
            }

            state.Set(key, value, lineNumber);
        }

        return empty
            ? throw new TunnelConfigurationException(0, null, "the file is empty (nothing but blank lines and comments); it needs an [Interface] section with a PrivateKey")
            : TunnelChanges.ToConfiguration(state.Build());
    }

    /// <summary>
    /// A word of letters and digits, as every WireGuard key name is, and short: a base64 key (44 characters) that lost
    /// its spaces is not taken for a name, so no message repeats it.
    /// </summary>
    private static bool IsKeyName(string key) =>
        key.Length is > 0 and <= 32 && char.IsAsciiLetter(key[0]) && key.All(char.IsAsciiLetterOrDigit);

    private static string StripComment(string line)
    {
        var hash = line.IndexOf('#', StringComparison.Ordinal);
        return hash < 0 ? line : line[..hash];
    }

    internal static WireGuardKey ParseKey(string value, string key, int line) =>
        WireGuardKey.TryParse(value, out var parsed)
            ? parsed!
            : throw new TunnelConfigurationException(line, key, "must be a 44-character base64 key (as wg genkey / wg pubkey print)");

    internal static int ParseInteger(string value, string key, int line, int minimum, int maximum) =>
        int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var number) && number >= minimum && number <= maximum
            ? number
            : throw new TunnelConfigurationException(line, key, $"must be a whole number from {minimum} to {maximum}, not {ShownValue.Of(value)}");

    /// <summary>A firewall mark as wg(8) reads it: "off", decimal, or hexadecimal with 0x; 0 and off mean none.</summary>
    internal static uint ParseFwMark(string value, string key, int line)
    {
        if (value.Equals("off", StringComparison.OrdinalIgnoreCase))
        {
            return 0;
        }

        // wg(8) takes hexadecimal after a lowercase "0x" only ("0X10" is refused), and the first character must be a digit.
        var hex = value.Length > 2 && value.StartsWith("0x", StringComparison.Ordinal);
        return uint.TryParse(hex ? value[2..] : value, hex ? NumberStyles.AllowHexSpecifier : NumberStyles.None, CultureInfo.InvariantCulture, out var mark)
            ? mark
            : throw new TunnelConfigurationException(line, key, $"must be off or a 32-bit number (decimal, or hexadecimal with 0x), not {ShownValue.Of(value)}");
    }

    /// <summary>
    /// A comma-separated list, each item read by <paramref name="parse"/>; a bad item names the line, the key, the item's
    /// place in the list and the form <paramref name="expected"/>, not the parser's own message, which quotes the item.
    /// </summary>
    /// <remarks>
    /// An empty item (two commas in a row, a comma at the end) is refused unless <paramref name="emptyItemsSkipped"/>:
    /// wg(8) refuses one in AllowedIPs ("Unable to parse IP address"), while wg-quick(8) splits Address on commas as
    /// shell words, which drops it. An empty value is an empty list in both.
    /// </remarks>
    internal static List<T> ParseList<T>(string value, string key, int line, string expected, Func<string, T> parse, bool emptyItemsSkipped = false)
    {
        var items = new List<T>();
        if (value.Trim().Length == 0)
        {
            return items;
        }

        var place = 0;
        foreach (var item in value.Split(',', StringSplitOptions.TrimEntries))
        {
            place++;
            if (item.Length == 0)
            {
                if (emptyItemsSkipped)
                {
                    continue;
                }

                throw new TunnelConfigurationException(line, key, $"item {place} is empty (two commas in a row, or one at the end), which wg refuses too");
            }

            try
            {
                items.Add(parse(item));
            }
            catch (FormatException)
            {
                throw new TunnelConfigurationException(line, key, $"item {items.Count + 1} must be {expected}, not {ShownValue.Of(item)}");
            }
        }

        return items;
    }

    internal static IPEndPoint ParseEndpoint(string value, string key, int line)
    {
        // host:port, with IPv6 in brackets ([fd00::1]:51820), as wg writes it.
        // The address in the forms wg(8) takes (IPPrefix.TryParseAddress): "10.1:51820" is not 10.0.0.1.
        var colon = value.LastIndexOf(':');
        ReadOnlySpan<char> host = colon > 0 ? value.AsSpan(0, colon).Trim('[').Trim(']') : [];
        if (!IPEndPoint.TryParse(value, out var endPoint) || endPoint.Port == 0 || !Routing.IPPrefix.TryParseAddress(host, out _)
            || !int.TryParse(value.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out _)
            || (endPoint.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 && !value.StartsWith('[')))
        {
            throw new TunnelConfigurationException(line, key, $"must be IP:port or [IPv6]:port with a port from 1 to 65535, not {ShownValue.Of(value)} (host names are not resolved)");
        }

        return endPoint;
    }
}
