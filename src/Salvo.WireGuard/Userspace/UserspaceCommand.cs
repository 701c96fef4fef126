using Salvo.WireGuard.Linux;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard.Userspace;

/// <summary>
/// <c>wireguard-salvo [-f|--foreground] IFACE</c>: wireguard-go's command line, as wg-quick runs a user-space
/// implementation (<c>"$WG_QUICK_USERSPACE_IMPLEMENTATION" "$INTERFACE"</c>). Creates the TUN interface IFACE with no
/// key and no peers and its control socket <c>/var/run/wireguard/IFACE.sock</c>, through which <c>wg</c> and
/// <c>wg-quick</c> configure it; detaches unless in the foreground; ends with exit code 0 when the interface is
/// deleted (<c>ip link del IFACE</c>, what <c>wg-quick down</c> does), its socket is removed, or on SIGTERM/SIGINT.
/// </summary>
internal static class UserspaceCommand
{
    /// <summary>wireguard-go's WG_PROCESS_FOREGROUND: "1" runs in the foreground as -f does; the detached process is started with it.</summary>
    public const string ForegroundVariable = "WG_PROCESS_FOREGROUND";

    /// <summary>The start of the line that says the control socket is up; the detaching start waits for it.</summary>
    public static string ReadyLine(string interfaceName) => $"{DaemonExecutable.Name}: {interfaceName} up with no configuration; control socket ";

    /// <summary>
    /// wireguard-go's WG_TUN_FD or WG_UAPI_FD when one is set (a device and socket its caller opened), which this command
    /// does not take: refused by name rather than ignored.
    /// </summary>
    public static string? InheritedDescriptorVariable(Func<string, string?> environment) =>
        new[] { "WG_TUN_FD", "WG_UAPI_FD" }.FirstOrDefault(name => !string.IsNullOrEmpty(environment(name)));

    public static async Task<int> RunAsync(UserspaceArguments arguments, DaemonConsole console, CancellationToken cancellationToken)
    {
        var interfaceName = arguments.InterfaceName;
        if (TunInterfaceName.Problem(interfaceName) is { } problem)
        {
            throw new DaemonException($"IFACE: {problem}");
        }

        if (interfaceName.Contains('%', StringComparison.Ordinal))
        {
            // The kernel turns "wg%d" into the first free wg0, wg1...; wg and wg-quick need the name before it exists.
            throw new DaemonException($"IFACE: '{interfaceName}' holds '%', which lets the kernel choose the name; give the name itself");
        }

        if (InheritedDescriptorVariable(Environment.GetEnvironmentVariable) is { } variable)
        {
            throw new DaemonException($"{variable} is set, but {DaemonExecutable.Name} opens the TUN device and the control socket itself and takes neither from its caller; unset it");
        }

        if (!HostOs.IsLinux)
        {
            throw new DaemonException("the tunnel's device needs Linux (/dev/net/tun)", DaemonException.FailureExitCode);
        }

        // Read before detaching, so a bad value is this command's error (exit code 2) and not a silent end in the background.
        var metrics = MetricsOptions.FromEnvironment(Environment.GetEnvironmentVariable);
        ControlSocketClaim.RefuseIfHeldElsewhere(DaemonExecutable.Name, interfaceName);

        return arguments.Foreground || Environment.GetEnvironmentVariable(ForegroundVariable) == "1"
            ? await UserspaceRun.RunAsync(console, interfaceName, metrics, cancellationToken).ConfigureAwait(false)
            : await UserspaceDetach.RunAsync(console, interfaceName, cancellationToken).ConfigureAwait(false);
    }
}
