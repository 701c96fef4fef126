using System.CommandLine;
using System.Diagnostics;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Tunnel;
using Salvo.Perf.Tunnel.Linux;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Routing;

namespace Salvo.Perf.Tunnel;

/// <summary><c>salvo tunnel</c>: WireGuard-compatible keys and a tunnel interface from a wg/wg-quick file.</summary>
internal static class TunnelCommand
{
    /// <summary>Where a running <c>up</c> writes its status once a second for <c>show</c> to print.</summary>
    internal const string StatusFolder = "/run/salvo-tunnel";

    private const int ListedAtExit = 100;

    public static Command Create(CliConsole console)
    {
        var command = new Command("tunnel",
            "An encrypted layer-3 tunnel that speaks the WireGuard protocol (tested against wireguard-go in both roles; the " +
            "kernel module is not tested): genkey, pubkey, up CONFIG, show, userspace IFACE (for wg and wg-quick), bench.");
        command.Subcommands.Add(GenKey(console));
        command.Subcommands.Add(PubKey(console));
        command.Subcommands.Add(Up(console));
        command.Subcommands.Add(Show(console));
        command.Subcommands.Add(Userspace.UserspaceCommand.Create(console));
        command.Subcommands.Add(TunnelBenchCommand.Create(console));
        return command;
    }

    private static Command GenKey(CliConsole console)
    {
        var command = new Command("genkey", "Prints a new random private key in base64, like 'wg genkey'.");
        command.SetAction(_ =>
        {
            if (console.OutputDescriptor is { } descriptor && PrivateKeyFile.Warning(descriptor) is { } warning)
            {
                console.Error.WriteLine(warning);
            }

            console.Out.WriteLine(WireGuardKey.GeneratePrivateKey().ToString());
            return 0;
        });
        return command;
    }

    private static Command PubKey(CliConsole console)
    {
        var command = new Command("pubkey", "Reads a private key on standard input and prints its public key, like 'wg pubkey'.");
        command.SetAction(_ =>
        {
            var text = Console.In.ReadToEnd();
            if (!WireGuardKey.TryParse(text, out var key))
            {
                throw new CliException("pubkey: standard input must be a 44-character base64 private key (as 'salvo tunnel genkey' prints)");
            }

            console.Out.WriteLine(key!.DerivePublicKey().ToString());
            return 0;
        });
        return command;
    }

    private static Command Up(CliConsole console)
    {
        var config = new Argument<FileInfo>("CONFIG") { Description = "A wg/wg-quick configuration file." };
        var name = new Option<string>("--name")
        {
            Description = "The TUN interface name, 1 to 15 characters. Defaults to the file name without extension (wg-quick's rule), e.g. salvo0.conf -> salvo0.",
            HelpName = "NAME",
        };
        var time = CommonOptions.OptionalSeconds("--time", "-t", "Take the interface down after this many seconds.", "running until Ctrl+C, SIGTERM or SIGHUP");
        // The name this option had before it was -t/--time as on every other command; still taken, no longer shown.
        var duration = CommonOptions.OptionalSeconds("--duration", null, "The same as -t/--time.", "running until Ctrl+C");
        duration.Hidden = true;
        var command = new Command("up",
            "Creates the TUN interface, applies Address and MTU with 'ip', routes the AllowedIPs over rtnetlink, and runs the tunnel until Ctrl+C, SIGTERM or SIGHUP " +
            "(Linux, root). Status goes to " + StatusFolder + "/NAME for 'salvo tunnel show'.")
        {
            config, name, time, duration,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var started = Stopwatch.StartNew();
            var file = parse.GetValue(config)!;
            if (parse.GetValue(time) is not null && parse.GetValue(duration) is not null)
            {
                throw new CliException("up: -t/--time and --duration are the same option; give one.");
            }

            if (!file.Exists)
            {
                throw new CliException($"up: CONFIG: no such file '{file.FullName}'");
            }

            if (!OperatingSystem.IsLinux())
            {
                throw new CliException("up: the tunnel's device needs Linux (/dev/net/tun)");
            }

            TunnelConfiguration configuration;
            TimeSpan parsed;
            try
            {
                configuration = WireGuardConfigParser.ParseFile(file.FullName);
                parsed = started.Elapsed;
            }
            catch (TunnelConfigurationException e)
            {
                throw new CliException($"up: {file.Name}: {e.Message}");
            }

            var chosenName = parse.GetValue(name);
            var interfaceName = chosenName ?? Path.GetFileNameWithoutExtension(file.Name);
            if (TunInterfaceName.Problem(interfaceName) is { } problem)
            {
                throw new CliException(chosenName is null
                    ? $"up: CONFIG: the interface is named after the file: {problem}; rename the file or give --name NAME"
                    : $"up: --name: {problem}");
            }

            // -t counts from the launch, and it and a stop signal (Ctrl+C, SIGTERM, SIGHUP) end the tunnel at any point,
            // route installation included: the usual end of a tunnel, so it exits 0.
            using var end = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            if ((parse.GetValue(time) ?? parse.GetValue(duration)) is { } seconds)
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
                console.Note($"salvo tunnel: stopped after {started.Elapsed.TotalSeconds:F1} s, before {interfaceName} was created");
                return 0;
            }

            // Before anything is made: a prefix the host routes already is refused with nothing to undo.
            var (routes, leftOut) = TunnelRoutes.For(configuration);
            var table = configuration.RouteTable ?? RouteMessages.MainTable;
            if (routes.Count > 0)
            {
                using var netlink = NetlinkRoutes.Open();
                RoutesInTheWay.Refuse(netlink, routes, table, ownInterface: 0);
            }

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
                var added = ConfigureInterface(console, tunnel.InterfaceName, configuration, routes, leftOut, table, stop);
                if (!stop.IsCancellationRequested)
                {
                    console.Note(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                        $"salvo tunnel: {tunnel.InterfaceName} up in {started.Elapsed.TotalSeconds:F2} s ({configuration.Peers.Count:N0} peers parsed in {parsed.TotalSeconds:F2} s, engine and device {(built - parsed).TotalSeconds:F2} s, {added:N0} routes {(started.Elapsed - built).TotalSeconds:F2} s; {Environment.CpuUsage.TotalTime.TotalSeconds:F2} CPU s), listening on UDP port {tunnel.ListenPort}, public key {tunnel.Engine.PublicKey}") +
                        (control is null ? string.Empty : $", wg control socket {control.Path}"));
                }

                string? statusProblem = null;
                try
                {
                    while (!stop.IsCancellationRequested && tunnel.LoopFailure is null)
                    {
                        var notWritten = TunnelStatusFiles.Write(statusDirectory, tunnel.InterfaceName, TunnelStatusDocument.From(tunnel, DateTimeOffset.UtcNow));
                        if (notWritten is not null && statusProblem is null)
                        {
                            // Once, not every second: the tunnel runs on without a status, as without a control socket.
                            console.Note($"salvo tunnel: warning: {tunnel.InterfaceName}: status not written ({notWritten}); 'salvo tunnel show' will not list it");
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
                throw new CliException($"up: {interfaceName}: a data loop ended ({failure.GetType().Name}: {failure.Message}); interface, routes, status file and wg control socket removed", CliException.FailureExitCode);
            }

            // Closing the device's descriptor removed the interface, and the kernel removed its addresses and routes with it.
            console.Note($"salvo tunnel: {interfaceName} down after {started.Elapsed.TotalSeconds:F0} s; interface, routes, status file and wg control socket removed");

            // The busiest peers, at most 100 lines: with 10,000 peers one line each held the exit up and buried the rest.
            var busiest = peers.OrderByDescending(peer => peer.ReceivedBytes + peer.SentBytes).ToArray();
            foreach (var peer in busiest.Take(ListedAtExit))
            {
                console.Note($"salvo tunnel: peer {peer.PublicKey}: {peer.ReceivedBytes:N0} B received, {peer.SentBytes:N0} B sent" +
                    (peer.LatestHandshake is { } handshake ? $", latest handshake {handshake:u}" : ", no handshake"));
            }

            if (busiest.Length > ListedAtExit)
            {
                console.Note($"salvo tunnel: {busiest.Length - ListedAtExit:N0} more peers, none with more traffic than those above");
            }

            return 0;
        });
        return command;
    }

    /// <summary>The socket 'wg show/set/syncconf NAME' talks to; a tunnel whose socket cannot start runs on without it, with a warning.</summary>
    private static WireGuardControlSocket? StartControlSocket(CliConsole console, TunnelDevice tunnel)
    {
        try
        {
            return WireGuardControlSocket.Start(tunnel, logger: new ConsoleLineLogger(console.Error));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.Net.Sockets.SocketException or PlatformNotSupportedException)
        {
            console.Note($"salvo tunnel: warning: {tunnel.InterfaceName}: no wg control socket ({e.Message}); 'wg show {tunnel.InterfaceName}' will not reach this tunnel");
            return null;
        }
    }

    private static Command Show(CliConsole console)
    {
        var name = new Argument<string?>("NAME") { Description = "One interface. Defaults to every running one.", Arity = ArgumentArity.ZeroOrOne };
        var command = new Command(
            "show",
            "Prints the interfaces that 'salvo tunnel up' runs: keys, port, drops by reason, peers, endpoints, handshakes, transfer; with --json one document listing them.")
        {
            name,
        };
        command.SetAction(parse =>
        {
            if (parse.GetValue(name) is { } shown && TunInterfaceName.Problem(shown) is { } problem)
            {
                throw new CliException($"show: NAME: {problem}");
            }

            var statuses = TunnelStatusFiles.Read(StatusFolder, parse.GetValue(name));
            if (console.Format == OutputFormat.Text)
            {
                var now = DateTimeOffset.UtcNow;
                console.Out.Write(string.Concat(statuses.Select(status => TunnelStatusText.Format(status, now))));
            }
            else
            {
                console.Document(statuses, PerfJson.Indented.IReadOnlyListTunnelStatusDocument, PerfJson.Compact.IReadOnlyListTunnelStatusDocument);
            }

            return 0;
        });
        return command;
    }

    /// <summary>
    /// What wg-quick does with Address, MTU, AllowedIPs and Table: 'ip address add', 'ip link set ... mtu ... up', then
    /// 'ip route add' of each allowed prefix through the interface into table <paramref name="table"/>, installed with
    /// rtnetlink in batches (<see cref="NetlinkRoutes"/>); returns how many were added. A route is never replaced: a
    /// prefix the table holds through another interface ends the start (<see cref="RoutesInTheWay"/>), one through this
    /// interface (an Address's own subnet) is left as it is. Every route added goes through the interface, so the
    /// kernel removes exactly those when the interface closes, and nothing else. Stops between batches once
    /// <paramref name="stop"/> is cancelled. A prefix the kernel refuses for another reason is an error naming it and the kernel's reason.
    /// </summary>
    private static int ConfigureInterface(CliConsole console, string interfaceName, TunnelConfiguration configuration,
        IReadOnlyList<IPPrefix> routes, IReadOnlyList<IPPrefix> leftOut, uint table, CancellationToken stop)
    {
        foreach (var address in configuration.Addresses)
        {
            RunIp("address", "add", address.ToString(), "dev", interfaceName);
        }

        RunIp("link", "set", "dev", interfaceName, "mtu", configuration.Mtu.ToString(System.Globalization.CultureInfo.InvariantCulture), "up");
        foreach (var route in leftOut)
        {
            console.Note($"salvo tunnel: AllowedIPs {route} accepted for cryptokey routing, but no default route added: it needs wg-quick's policy routing " +
                "(run the file with wg-quick and WG_QUICK_USERSPACE_IMPLEMENTATION naming salvo), or Table = NUMBER and rules of your own");
        }

        var refused = new List<RefusedRoute>();
        List<IPPrefix> added;
        using (var netlink = NetlinkRoutes.Open())
        {
            var interfaceIndex = NetlinkRoutes.InterfaceIndex(interfaceName);
            added = netlink.Add(routes, interfaceIndex, table, refused, stop);
            RoutesInTheWay.RefuseExisting(netlink, refused, table, interfaceIndex);
        }

        if (refused.Count > 0)
        {
            var shown = string.Join("; ", refused.Take(5).Select(r => $"{r.Prefix}: {r.Reason}"));
            throw new CliException($"up: the kernel refused {refused.Count:N0} of {routes.Count:N0} AllowedIPs routes through {interfaceName}: {shown}{(refused.Count > 5 ? "; ..." : string.Empty)}");
        }

        return added.Count;
    }

    private static void RunIp(params string[] arguments)
    {
        var start = new ProcessStartInfo("ip") { RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new CliException("up: could not run 'ip' (iproute2)");
        var error = process.StandardError.ReadToEnd();
        if (!process.WaitForExit(10_000) || process.ExitCode != 0)
        {
            throw new CliException($"up: ip {string.Join(' ', arguments)} failed: {error.Trim()}");
        }
    }
}
