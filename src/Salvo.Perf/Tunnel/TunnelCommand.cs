using System.CommandLine;
using System.Diagnostics;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;

namespace Salvo.Perf.Tunnel;

/// <summary><c>salvo tunnel</c>: WireGuard-compatible keys and a tunnel interface from a wg/wg-quick file.</summary>
internal static class TunnelCommand
{
    /// <summary>Where a running <c>up</c> writes its status once a second for <c>show</c> to print.</summary>
    internal const string StatusFolder = "/run/salvo-tunnel";

    public static Command Create(CliConsole console)
    {
        var command = new Command("tunnel",
            "An encrypted layer-3 tunnel that speaks the WireGuard protocol (interoperates with wireguard-go and the " +
            "kernel module): genkey, pubkey, up CONFIG, show, userspace IFACE (for wg and wg-quick), bench.");
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
            "Creates the TUN interface, applies Address and MTU with 'ip', and runs the tunnel until Ctrl+C, SIGTERM or SIGHUP " +
            "(Linux, root). Status goes to " + StatusFolder + "/NAME for 'salvo tunnel show'.")
        {
            config, name, time, duration,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
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
            try
            {
                configuration = WireGuardConfigParser.ParseFile(file.FullName);
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

            var seconds = parse.GetValue(time) ?? parse.GetValue(duration);

            var started = Stopwatch.StartNew();
            IReadOnlyList<PeerStatus> peers;
            using (var tunnel = TunnelDevice.Start(configuration, KernelTunDevice.Open(interfaceName), logger: new ConsoleLineLogger(console.Error)))
            {
                interfaceName = tunnel.InterfaceName;
                ConfigureInterface(console, tunnel.InterfaceName, configuration);
                using var control = StartControlSocket(console, tunnel);
                console.Note($"salvo tunnel: {tunnel.InterfaceName} up, listening on UDP port {tunnel.ListenPort}, public key {tunnel.Engine.PublicKey}" +
                    (control is null ? string.Empty : $", wg control socket {control.Path}"));
                Directory.CreateDirectory(StatusFolder);
                var statusFile = Path.Combine(StatusFolder, tunnel.InterfaceName);
                var deadline = seconds is null ? DateTime.MaxValue : DateTime.UtcNow.AddSeconds(seconds.Value);
                try
                {
                    // Until -t, or a stop signal (Ctrl+C, SIGTERM, SIGHUP): the usual end of a tunnel, so it exits 0.
                    while (!cancellationToken.IsCancellationRequested && DateTime.UtcNow < deadline)
                    {
                        await TunnelStatusFiles.WriteAsync(statusFile, TunnelStatusDocument.From(tunnel, DateTimeOffset.UtcNow)).ConfigureAwait(false);
                        await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken).ContinueWith(_ => { }, TaskScheduler.Default).ConfigureAwait(false);
                    }
                }
                finally
                {
                    File.Delete(statusFile);
                }

                peers = tunnel.Engine.GetPeers().ToArray();
            }

            // Closing the device's descriptor removed the interface, and the kernel removed its addresses and routes with it.
            console.Note($"salvo tunnel: {interfaceName} down after {started.Elapsed.TotalSeconds:F0} s; interface, routes, status file and wg control socket removed");
            foreach (var peer in peers)
            {
                console.Note($"salvo tunnel: peer {peer.PublicKey}: {peer.ReceivedBytes:N0} B received, {peer.SentBytes:N0} B sent" +
                    (peer.LatestHandshake is { } handshake ? $", latest handshake {handshake:u}" : ", no handshake"));
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
    /// What wg-quick does with Address, MTU, AllowedIPs and Table: 'ip address add', 'ip link set ... mtu ... up' and
    /// 'ip route replace PREFIX dev NAME [table N]' per allowed prefix (replace: an Address's own subnet is already there).
    /// </summary>
    private static void ConfigureInterface(CliConsole console, string interfaceName, TunnelConfiguration configuration)
    {
        foreach (var address in configuration.Addresses)
        {
            RunIp("address", "add", address.ToString(), "dev", interfaceName);
        }

        RunIp("link", "set", "dev", interfaceName, "mtu", configuration.Mtu.ToString(System.Globalization.CultureInfo.InvariantCulture), "up");
        var (routes, leftOut) = TunnelRoutes.For(configuration);
        string[] table = configuration.RouteTable is { } number ? ["table", number.ToString(System.Globalization.CultureInfo.InvariantCulture)] : [];
        foreach (var route in routes)
        {
            RunIp([route.Address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? "-6" : "-4", "route", "replace", route.ToString(), "dev", interfaceName, .. table]);
        }

        foreach (var route in leftOut)
        {
            console.Note($"salvo tunnel: AllowedIPs {route} accepted for cryptokey routing, but no default route added: it needs wg-quick's policy routing " +
                "(run the file with wg-quick and WG_QUICK_USERSPACE_IMPLEMENTATION naming salvo), or Table = NUMBER and rules of your own");
        }
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
