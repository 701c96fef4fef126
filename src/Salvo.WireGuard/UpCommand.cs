using System.Diagnostics;
using System.Globalization;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Routing;
using Salvo.WireGuard.Linux;
using Salvo.WireGuard.Metrics;
using Salvo.WireGuard.Status;

namespace Salvo.WireGuard;

/// <summary>
/// <c>wireguard-salvo up CONFIG</c>: the TUN interface from a wg/wg-quick file, its Address and MTU, a route for each
/// AllowedIPs prefix, its wg control socket and a status file, until a stop signal (or -t) takes it all down.
/// </summary>
internal static class UpCommand
{
    /// <summary>Where a running <c>up</c> writes its status once a second for <c>show</c> to print; a fixed path docs/cli.md gives, which salvo's tunnel bench also names (DaemonProgram.StatusFolder).</summary>
    public const string StatusFolder = "/run/salvo-tunnel";

    private const int ListedAtExit = 100;

    // The parse of this many peers leaves tens of megabytes behind (about 1 KB a peer), as a wg setconf of 8 MB does.
    private const int GiveBackAfterPeers = 40_000;

    public static async Task<int> RunAsync(UpArguments arguments, DaemonConsole console, CancellationToken cancellationToken)
    {
        var started = Stopwatch.StartNew();
        var file = new FileInfo(arguments.Config);
        if (!file.Exists)
        {
            throw new DaemonException($"up: CONFIG: no such file '{file.FullName}'");
        }

        if (!HostOs.IsLinux)
        {
            throw new DaemonException("up: the tunnel's device needs Linux (/dev/net/tun)");
        }

        if (ConfigFileAccess.Warning(file.FullName) is { } warning)
        {
            console.Note(warning);
        }

        TunnelConfiguration? configuration;
        TimeSpan parsed;
        try
        {
            configuration = WireGuardConfigParser.ParseFile(file.FullName);
            parsed = started.Elapsed;
        }
        catch (TunnelConfigurationException e)
        {
            throw new DaemonException($"up: {file.Name}: {e.Message}");
        }

        var interfaceName = arguments.Name ?? Path.GetFileNameWithoutExtension(file.Name);
        if (TunInterfaceName.Problem(interfaceName) is { } problem)
        {
            throw new DaemonException(arguments.Name is null
                ? $"up: CONFIG: the interface is named after the file: {problem}; rename the file or give --name NAME"
                : $"up: --name: {problem}");
        }

        ControlSocketClaim.RefuseIfHeldElsewhere("up", interfaceName);

        // -t counts from the launch, and it and a stop signal end the tunnel at any point, route installation
        // included: the usual end of a tunnel, so it exits 0.
        using var end = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        if (arguments.Seconds is { } seconds)
        {
            var left = seconds - started.Elapsed.TotalSeconds;
            if (left > 0)
            {
                end.CancelAfter(TimeSpan.FromSeconds(left));
            }
            else
            {
                await end.CancelAsync().ConfigureAwait(false);
            }
        }

        var stop = end.Token;
        if (stop.IsCancellationRequested)
        {
            // Stopped while the file was read: there is nothing to take down yet.
            console.Note($"{DaemonExecutable.Name}: stopped after {started.Elapsed.TotalSeconds:F1} s, before {interfaceName} was created");
            return 0;
        }

        var (routes, leftOut) = TunnelRoutes.For(configuration);
        var table = configuration.RouteTable ?? InterfaceSetup.MainTable;
        using var setup = Setup(InterfaceSetup.Open);

        // Before anything is made: a prefix the host routes already is refused with nothing to undo.
        Setup(() => setup.RefuseRoutesInTheWay(routes, table, interfaceName: null));
        using var statusDirectory = StatusDirectory.Open(StatusFolder);
        IReadOnlyList<PeerStatus> peers;
        Exception? failure;

        // The device starts at the MTU it will run at (a new TUN is 1,500), so it does not log a change to 1,500 and back.
        var tun = KernelTunDevice.Open(interfaceName);
        try
        {
            tun.SetMtu(configuration.Mtu);
        }
        catch
        {
            tun.Dispose();
            throw;
        }

        using (var tunnel = TunnelDevice.Start(configuration, tun, logger: new ConsoleLineLogger(console.Error)))
        {
            interfaceName = tunnel.InterfaceName;
            var built = started.Elapsed;
            using var control = StartControlSocket(console, tunnel);
            await using var metrics = MetricsEndpoint.Start(arguments.Metrics, tunnel, configuration.Peers.Count, console);
            var added = ConfigureInterface(console, setup, tunnel.InterfaceName, configuration, routes, leftOut, table, stop);
            var peerCount = configuration.Peers.Count;

            // The engine holds the peers now; the parsed file (about 1 KB a peer at a million) is let go rather than
            // kept in this method's state for the tunnel's life.
            configuration = null;
            routes = [];
            leftOut = [];
            var routed = started.Elapsed;
            if (peerCount >= GiveBackAfterPeers)
            {
                // Without a compacting collection the runtime keeps the parse's pages for its next allocations.
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
            }

            if (!stop.IsCancellationRequested)
            {
                console.Note(string.Create(CultureInfo.InvariantCulture,
                    $"{DaemonExecutable.Name}: {tunnel.InterfaceName} up in {started.Elapsed.TotalSeconds:F2} s ({peerCount:N0} peers parsed in {parsed.TotalSeconds:F2} s, engine and device {(built - parsed).TotalSeconds:F2} s, {added:N0} routes {(routed - built).TotalSeconds:F2} s, parse let go {(started.Elapsed - routed).TotalSeconds:F2} s; {Environment.CpuUsage.TotalTime.TotalSeconds:F2} CPU s), listening on UDP port {tunnel.ListenPort}, public key {tunnel.Engine.PublicKey}") +
                    (control is null ? string.Empty : $", wg control socket {control.Path}"));
            }

            string? statusProblem = null;
            var nextWholeStatus = 0L;
            try
            {
                while (!stop.IsCancellationRequested && tunnel.LoopFailure is null)
                {
                    string? notWritten;
                    if (Environment.TickCount64 >= nextWholeStatus)
                    {
                        // A status lists every peer: at a million peers that is seconds of CPU and hundreds of MB. It is
                        // written again only after 20 times what the last one took (at most 5 % of a core), and in
                        // between its time is refreshed, so 'show' still takes it for a running tunnel's (StaleAfter).
                        var began = Environment.TickCount64;
                        notWritten = TunnelStatusFiles.Write(statusDirectory, tunnel.InterfaceName, TunnelStatusDocument.From(tunnel, DateTimeOffset.UtcNow));
                        nextWholeStatus = began + Math.Max(1_000, 20 * (Environment.TickCount64 - began));
                    }
                    else
                    {
                        notWritten = statusDirectory.Touch(tunnel.InterfaceName) ? null : "its time not refreshed";
                    }

                    if (notWritten is not null && statusProblem is null)
                    {
                        // Once, not every second: the tunnel runs on without a status, as without a control socket.
                        console.Note($"{DaemonExecutable.Name}: warning: {tunnel.InterfaceName}: status not written ({notWritten}); 'wireguard-salvo show' will not list it");
                    }

                    statusProblem = notWritten;
                    await Task.Delay(TimeSpan.FromSeconds(1), stop).ContinueWith(_ => { }, TaskScheduler.Default).ConfigureAwait(false);
                }
            }
            finally
            {
                statusDirectory.Delete(tunnel.InterfaceName);
            }

            peers = tunnel.Engine.GetPeers().ToArray();
            failure = tunnel.LoopFailure;
        }

        if (failure is not null)
        {
            // The tunnel no longer carries packets: it is taken down (interface, routes, socket) rather than left to black-hole its routes.
            throw new DaemonException($"up: {interfaceName}: a data loop ended ({failure.GetType().Name}: {failure.Message}); interface, routes, status file and wg control socket removed", DaemonException.FailureExitCode);
        }

        // Closing the device's descriptor removed the interface, and the kernel removed its addresses and routes with it.
        console.Note($"{DaemonExecutable.Name}: {interfaceName} down after {started.Elapsed.TotalSeconds:F0} s; interface, routes, status file and wg control socket removed");

        // The busiest peers, at most 100 lines: with 10,000 peers one line each held the exit up and buried the rest.
        var busiest = peers.OrderByDescending(peer => peer.ReceivedBytes + peer.SentBytes).ToArray();
        foreach (var peer in busiest.Take(ListedAtExit))
        {
            console.Note($"{DaemonExecutable.Name}: peer {peer.PublicKey}: {peer.ReceivedBytes:N0} B received, {peer.SentBytes:N0} B sent" +
                (peer.LatestHandshake is { } handshake ? $", latest handshake {handshake:u}" : ", no handshake"));
        }

        if (busiest.Length > ListedAtExit)
        {
            console.Note($"{DaemonExecutable.Name}: {busiest.Length - ListedAtExit:N0} more peers, none with more traffic than those above");
        }

        return 0;
    }

    /// <summary>The socket 'wg show/set/syncconf NAME' talks to; a tunnel whose socket cannot start runs on without it, with a warning.</summary>
    private static WireGuardControlSocket? StartControlSocket(DaemonConsole console, TunnelDevice tunnel)
    {
        try
        {
            return WireGuardControlSocket.Start(tunnel, logger: new ConsoleLineLogger(console.Error));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Net.Sockets.SocketException or PlatformNotSupportedException)
        {
            console.Note($"{DaemonExecutable.Name}: warning: {tunnel.InterfaceName}: no wg control socket ({e.Message}); 'wg show {tunnel.InterfaceName}' will not reach this tunnel");
            return null;
        }
    }

    /// <summary>
    /// What wg-quick does with Address, MTU, AllowedIPs and Table ('ip address add', 'ip link set ... mtu ... up',
    /// 'ip route add' of each allowed prefix through the interface into <paramref name="table"/>), through the
    /// tunnel's <see cref="IInterfaceSetup"/>; returns how many routes were added. Stops between route batches once
    /// <paramref name="stop"/> is cancelled.
    /// </summary>
    private static int ConfigureInterface(DaemonConsole console, IInterfaceSetup setup, string interfaceName, TunnelConfiguration configuration,
        IReadOnlyList<IPPrefix> routes, IReadOnlyList<IPPrefix> leftOut, uint table, CancellationToken stop)
    {
        foreach (var address in configuration.Addresses)
        {
            Setup(() => setup.AddAddress(interfaceName, address));
        }

        Setup(() => setup.SetMtuAndUp(interfaceName, configuration.Mtu));
        foreach (var route in leftOut)
        {
            console.Note($"{DaemonExecutable.Name}: AllowedIPs {route} accepted for cryptokey routing, but no default route added: it needs wg-quick's policy routing " +
                "(run the file with wg-quick and WG_QUICK_USERSPACE_IMPLEMENTATION=wireguard-salvo), or Table = NUMBER and rules of your own");
        }

        return Setup(() => setup.AddRoutes(interfaceName, routes, table, stop));
    }

    private static void Setup(Action action) => Setup(() =>
    {
        action();
        return 0;
    });

    /// <summary>Runs one step of the interface's setup; the kernel's refusal becomes the command's error.</summary>
    private static T Setup<T>(Func<T> step)
    {
        try
        {
            return step();
        }
        catch (InterfaceSetupException e)
        {
            throw new DaemonException($"up: {e.Message}", DaemonException.UsageExitCode);
        }
    }
}
