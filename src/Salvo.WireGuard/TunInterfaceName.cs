namespace Salvo.WireGuard;

/// <summary>What the kernel accepts as an interface name, checked on the command line before anything is created.</summary>
internal static class TunInterfaceName
{
    /// <summary>IFNAMSIZ (16, linux/if.h) less the terminating NUL.</summary>
    public const int MaxLength = 15;

    /// <summary>
    /// Why the kernel would refuse <paramref name="name"/>, or null when it is valid. The rules are
    /// net/core/dev.c's dev_valid_name: 1 to 15 bytes, not "." or "..", no '/', ':' or whitespace. Two more are this
    /// CLI's: printable ASCII only (a name of multi-byte characters passed the 15-character check, failed in the kernel
    /// and left the detaching caller waiting 30 s with the control socket behind), and no leading '-' (so "-x" or "-",
    /// a mistyped option, is not taken for a name, and `ip` and `wg` can be given the name as an argument).
    /// </summary>
    public static string? Problem(string name)
    {
        if (name.Any(c => c is < '!' or > '~' && !char.IsWhiteSpace(c)))
        {
            return $"'{Printable(name)}' holds characters other than printable ASCII, which an interface name cannot here";
        }

        if (name.Length is 0 or > MaxLength)
        {
            return $"'{name}' is {name.Length} characters; an interface name is 1 to {MaxLength}";
        }

        if (name is "." or "..")
        {
            return $"'{name}' is not an interface name";
        }

        if (name.StartsWith('-'))
        {
            return $"'{name}' starts with '-', which reads as an option; an interface name cannot here";
        }

        return name.Any(c => c is '/' or ':' || char.IsWhiteSpace(c))
            ? $"'{name}' holds '/', ':' or whitespace, which an interface name cannot"
            : null;
    }

    /// <summary>The name with every character outside printable ASCII as \uXXXX, so a terminal shows what was given.</summary>
    private static string Printable(string name) =>
        string.Concat(name.Select(c => c is >= ' ' and <= '~' ? c.ToString() : $"\\u{(int)c:X4}"));
}
