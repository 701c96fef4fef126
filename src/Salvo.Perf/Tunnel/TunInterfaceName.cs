namespace Salvo.Perf.Tunnel;

/// <summary>What the kernel accepts as an interface name, checked before <c>up</c> opens the device.</summary>
internal static class TunInterfaceName
{
    /// <summary>IFNAMSIZ (16, linux/if.h) less the terminating NUL.</summary>
    public const int MaxLength = 15;

    /// <summary>
    /// Why the kernel would refuse <paramref name="name"/>, or null when it is valid. The rules are
    /// net/core/dev.c's dev_valid_name: 1 to 15 characters, not "." or "..", no '/', ':' or whitespace.
    /// </summary>
    public static string? Problem(string name)
    {
        if (name.Length is 0 or > MaxLength)
        {
            return $"'{name}' is {name.Length} characters; an interface name is 1 to {MaxLength}";
        }

        if (name is "." or "..")
        {
            return $"'{name}' is not an interface name";
        }

        return name.Any(c => c is '/' or ':' || char.IsWhiteSpace(c))
            ? $"'{name}' holds '/', ':' or whitespace, which an interface name cannot"
            : null;
    }
}
