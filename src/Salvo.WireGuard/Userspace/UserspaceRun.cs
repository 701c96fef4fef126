using System.Runtime.Versioning;

using Salvo.Tunnel;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard.Userspace;

/// <summary>The foreground run of <c>wireguard-salvo -f IFACE</c>: the device and its control socket until the interface or the socket goes, or a stop signal comes.</summary>
[SupportedOSPlatform("linux")]
internal static class UserspaceRun
{
    /// <summary>
    /// How often the interface and the socket are looked for. wireguard-go hears of a deleted interface from its failing
    /// TUN read and of a removed socket through inotify; a look costs one getifaddrs(3) and one stat(2). Ten a second
    /// keep the end after 'ip link del' well inside half a second (it took 0.28-0.48 s with two a second, on a loaded
    /// two-core machine where the rest of the shutdown takes 0.1-0.2 s).
    /// </summary>
    private static readonly TimeSpan s_watchInterval = TimeSpan.FromMilliseconds(100);

    /// <param name="console">Where its lines go.</param>
    /// <param name="interfaceName">The TUN interface to create.</param>
    /// <param name="metrics">The Prometheus endpoint <see cref="MetricsOptions.ListenVariable"/> asks for; null for none.</param>
    /// <param name="cancellationToken">A stop signal.</param>
    public static async Task<int> RunAsync(DaemonConsole console, string interfaceName, MetricsOptions? metrics, CancellationToken cancellationToken)
    {
        KernelTunDevice tun;
        try
        {
            tun = KernelTunDevice.Open(interfaceName);
        }
        catch (IOException e)
        {
            throw new DaemonException($"cannot create the TUN interface {interfaceName}: {e.Message}", DaemonException.FailureExitCode);
        }

        try
        {
            // wireguard-go creates its TUN at 1420 (device.DefaultMTU), leaving room for WireGuard over IPv6 on a
            // 1,500-byte path; the kernel's own default for a TUN is 1,500. The tunnel follows later changes either way.
            tun.SetMtu(Salvo.Tunnel.Configuration.TunnelConfiguration.DefaultMtu);
        }
        catch (IOException e)
        {
            tun.Dispose();
            throw new DaemonException($"cannot set the MTU of {interfaceName}: {e.Message}", DaemonException.FailureExitCode);
        }

        UserspaceDevice started;
        try
        {
            started = UserspaceDevice.Start(tun, new ConsoleLineLogger(console.Error));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Net.Sockets.SocketException)
        {
            throw new DaemonException($"{interfaceName}: cannot open the control socket: {e.Message}", DaemonException.FailureExitCode);
        }

        string why;
        string? failed = null;
        using (var device = started)
        {
            // Peers come later through wg setconf: the per-peer bound is applied at each scrape.
            await using var endpoint = StartMetrics(metrics, device, console, interfaceName);
            console.Note($"{UserspaceCommand.ReadyLine(device.InterfaceName)}{device.SocketPath} (wg, wg-quick)");
            var watch = new InterfaceWatch(device.InterfaceName, device.SocketPath);
            why = "stop signal";
            while (!cancellationToken.IsCancellationRequested)
            {
                if (watch.Gone() is { } gone)
                {
                    why = gone;
                    break;
                }

                if (device.LoopFailure is { } failure)
                {
                    failed = $"a data loop ended: {failure.GetType().Name}: {failure.Message}";
                    break;
                }

                await Task.Delay(s_watchInterval, cancellationToken).ContinueWith(_ => { }, TaskScheduler.Default).ConfigureAwait(false);
            }
        }

        if (failed is not null)
        {
            // The tunnel no longer carries packets: leaving the interface up would black-hole its routes.
            throw new DaemonException($"{interfaceName}: {failed}; interface and control socket removed", DaemonException.FailureExitCode);
        }

        // A stop signal is this process's usual end, as for wireguard-go: exit 0, the socket removed with the device.
        console.Note($"{DaemonExecutable.Name}: {interfaceName} down ({why}); control socket removed");
        return 0;
    }

    private static ScrapeEndpoint? StartMetrics(MetricsOptions? metrics, UserspaceDevice device, DaemonConsole console, string interfaceName)
    {
        // A failure leaves through the caller's using, which removes the socket and the device.
        try
        {
            return MetricsEndpoint.Start(metrics, device.Tunnel, configuredPeers: 0, console, MetricsOptions.ListenVariable);
        }
        catch (DaemonException e)
        {
            throw new DaemonException($"{interfaceName}: {e.Message}", DaemonException.FailureExitCode);
        }
    }
}
