using System.CommandLine;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tunnel.Userspace;

/// <summary>
/// <c>salvo tunnel userspace IFACE [-f|--foreground]</c>: wireguard-go's command line. Creates the TUN interface IFACE
/// with no key and no peers and its control socket <c>/var/run/wireguard/IFACE.sock</c>, through which <c>wg</c> and
/// <c>wg-quick</c> configure it; detaches unless in the foreground; ends with exit code 0 when the interface is
/// deleted (<c>ip link del IFACE</c>, what <c>wg-quick down</c> does), its socket is removed, or on SIGTERM/SIGINT.
/// </summary>
internal static class UserspaceCommand
{
    /// <summary>wireguard-go's ENV_WG_PROCESS_FOREGROUND: "1" runs in the foreground as -f does; the detached process is started with it.</summary>
    public const string ForegroundVariable = "WG_PROCESS_FOREGROUND";

    /// <summary>The start of the line that says the control socket is up; the detaching start waits for it.</summary>
    public static string ReadyLine(string interfaceName) => $"salvo tunnel: {interfaceName} up with no configuration; control socket ";

    /// <summary>
    /// wireguard-go's WG_TUN_FD or WG_UAPI_FD when one is set (a device and socket its caller opened), which this command
    /// does not take: refused by name rather than ignored.
    /// </summary>
    public static string? InheritedDescriptorVariable(Func<string, string?> environment) =>
        new[] { "WG_TUN_FD", "WG_UAPI_FD" }.FirstOrDefault(name => !string.IsNullOrEmpty(environment(name)));

    public static Command Create(CliConsole console)
    {
        var name = new Argument<string>("IFACE")
        {
            Description = "The TUN interface to create, 1 to 15 characters; wg and wg-quick find its control socket /var/run/wireguard/IFACE.sock by this name.",
        };
        var foreground = new Option<bool>("--foreground", "-f")
        {
            Description = "Stay in the foreground, logging to stderr, until the interface is deleted or a stop signal comes. " +
                "Defaults to detaching once the control socket is up, as wireguard-go does (and WG_PROCESS_FOREGROUND=1 in the environment stays too).",
        };
        var command = new Command("userspace",
            "Runs as a WireGuard user-space implementation, with wireguard-go's command line: creates the TUN interface IFACE with no " +
            "configuration and its control socket for 'wg' and 'wg-quick' (Linux, root), and exits 0 when the interface is deleted " +
            "('ip link del IFACE', 'wg-quick down'), its socket removed, or on SIGTERM or SIGINT. " +
            "wg-quick runs it when WG_QUICK_USERSPACE_IMPLEMENTATION names salvo.")
        {
            name, foreground,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var interfaceName = parse.GetValue(name)!;
            if (TunInterfaceName.Problem(interfaceName) is { } problem)
            {
                throw new CliException($"userspace: IFACE: {problem}");
            }

            if (interfaceName.Contains('%', StringComparison.Ordinal))
            {
                // The kernel turns "wg%d" into the first free wg0, wg1...; wg and wg-quick need the name before it exists.
                throw new CliException($"userspace: IFACE: '{interfaceName}' holds '%', which lets the kernel choose the name; give the name itself");
            }

            if (InheritedDescriptorVariable(Environment.GetEnvironmentVariable) is { } variable)
            {
                throw new CliException($"userspace: {variable} is set, but salvo opens the TUN device and the control socket itself and takes neither from its caller; unset it");
            }

            if (!OperatingSystem.IsLinux())
            {
                throw new CliException("userspace: the tunnel's device needs Linux (/dev/net/tun)", CliException.FailureExitCode);
            }

            return parse.GetValue(foreground) || Environment.GetEnvironmentVariable(ForegroundVariable) == "1"
                ? await UserspaceRun.RunAsync(console, interfaceName, cancellationToken).ConfigureAwait(false)
                : await UserspaceDetach.RunAsync(console, interfaceName, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }
}
