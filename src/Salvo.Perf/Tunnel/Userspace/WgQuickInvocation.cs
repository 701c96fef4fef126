using System.CommandLine;
using System.Text.RegularExpressions;

namespace Salvo.Perf.Tunnel.Userspace;

/// <summary>
/// wg-quick's call of a user-space implementation: <c>"$WG_QUICK_USERSPACE_IMPLEMENTATION" "$INTERFACE"</c>, one
/// executable path and the interface name, nothing else (wg-quick(8), add_if). So that the path may be salvo itself,
/// salvo takes that call for <c>salvo tunnel userspace IFACE</c>: one argument, a name wg-quick allows and neither a
/// salvo command nor an option (--help, --version), with the variable set in the environment wg-quick passes on.
/// </summary>
internal static partial class WgQuickInvocation
{
    /// <summary>The variable wg-quick reads the implementation's path from.</summary>
    public const string Variable = "WG_QUICK_USERSPACE_IMPLEMENTATION";

    /// <summary>The arguments to run: <c>tunnel userspace IFACE</c> for wg-quick's call, else <paramref name="args"/> as they are.</summary>
    /// <param name="args">The command line.</param>
    /// <param name="implementation">The variable's value in this process's environment, or null.</param>
    /// <param name="root">The command tree, whose command names are never taken for an interface.</param>
    public static string[] Arguments(string[] args, string? implementation, Command root) =>
        args is [var name]
            && !string.IsNullOrEmpty(implementation)
            && InterfaceName().IsMatch(name)
            && !name.StartsWith('-')
            && !root.Subcommands.Any(command => command.Name == name)
            ? ["tunnel", "userspace", name]
            : args;

    /// <summary>The interface names wg-quick accepts (its config file's name less .conf).</summary>
    [GeneratedRegex("^[a-zA-Z0-9_=+.-]{1,15}$")]
    private static partial Regex InterfaceName();
}
