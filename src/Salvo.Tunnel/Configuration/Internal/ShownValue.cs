using System.Globalization;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// How an error quotes a value it refuses. A WireGuard key is 44 characters of base64 (64 in hex), and a private key
/// pasted on the wrong line would otherwise reach the terminal and the logs, so a value is quoted only when it is too
/// short to be a key, or to hold half of one (22 characters of base64 are 128 bits): anything past 16 characters is
/// described by its length instead.
/// </summary>
internal static class ShownValue
{
    /// <summary>The longest value an error repeats; a third of a base64 key at most (96 bits).</summary>
    public const int LongestShown = 16;

    /// <summary><c>'value'</c> when it is short enough to be harmless, else a note that it is not shown and why.</summary>
    public static string Of(string value) =>
        value.Length <= LongestShown
            ? $"'{value}'"
            : string.Create(CultureInfo.InvariantCulture, $"the value given ({value.Length} characters; not shown, as it may be a key)");
}
