using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Tunnel;

namespace Salvo.Perf.Tunnel;

/// <summary><c>salvo tunnel</c>: WireGuard-compatible keys and a tunnel interface from a wg/wg-quick file.</summary>
internal static class TunnelCommand
{
    public static Command Create(CliConsole console)
    {
        var command = new Command("tunnel",
            "An encrypted layer-3 tunnel that speaks the WireGuard protocol (tested against wireguard-go in both roles; the " +
            "kernel module is not tested): genkey, pubkey, bench; up, show and userspace are deprecated and run the daemon, wireguard-salvo.");
        command.Subcommands.Add(GenKey(console));
        command.Subcommands.Add(PubKey(console));
        command.Subcommands.Add(Up(console));
        command.Subcommands.Add(Show(console));
        command.Subcommands.Add(Userspace(console));
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
            "Deprecated: runs 'wireguard-salvo up CONFIG', the WireGuard daemon's own program, which creates the TUN interface, applies Address and MTU, " +
            "routes the AllowedIPs over rtnetlink, and runs the tunnel until Ctrl+C, SIGTERM or SIGHUP (Linux, root).")
        {
            config, name, time, duration,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            if (parse.GetValue(time) is not null && parse.GetValue(duration) is not null)
            {
                throw new CliException("up: -t/--time and --duration are the same option; give one.");
            }

            List<string> arguments = ["up", parse.GetValue(config)!.FullName];
            if (parse.GetValue(name) is { } chosen)
            {
                arguments.AddRange(["--name", chosen]);
            }

            if ((parse.GetValue(time) ?? parse.GetValue(duration)) is { } seconds)
            {
                arguments.AddRange(["--time", seconds.ToString("R", System.Globalization.CultureInfo.InvariantCulture)]);
            }

            WireGuardDaemon.Run(console, "up", arguments, cancellationToken);
            return Task.CompletedTask;
        });
        return command;
    }

    private static Command Show(CliConsole console)
    {
        var name = new Argument<string?>("NAME") { Description = "One interface. Defaults to every running one.", Arity = ArgumentArity.ZeroOrOne };
        var command = new Command(
            "show",
            "Deprecated: runs 'wireguard-salvo show', which prints the interfaces 'wireguard-salvo up' runs: keys, port, drops by reason, peers, endpoints, handshakes, transfer; with --json one document listing them.")
        {
            name,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            List<string> arguments = ["show"];
            if (parse.GetValue(name) is { } shown)
            {
                // A name the daemon would take for an option is refused there by its own rule, not read as one.
                arguments.Add(shown);
            }

            if (console.Format != OutputFormat.Text)
            {
                arguments.Add("--json");
            }

            WireGuardDaemon.Run(console, "show", arguments, cancellationToken);
            return Task.CompletedTask;
        });
        return command;
    }

    private static Command Userspace(CliConsole console)
    {
        var name = new Argument<string>("IFACE") { Description = "The TUN interface to create, 1 to 15 characters." };
        var foreground = new Option<bool>("--foreground", "-f") { Description = "Stay in the foreground. Defaults to detaching once the control socket is up, as wireguard-go does." };
        var command = new Command("userspace",
            "Deprecated: runs 'wireguard-salvo [-f] IFACE', the WireGuard daemon's own program with wireguard-go's command line; " +
            "set WG_QUICK_USERSPACE_IMPLEMENTATION=wireguard-salvo for wg-quick.")
        {
            name, foreground,
        };
        command.SetAction((parse, cancellationToken) =>
        {
            List<string> arguments = parse.GetValue(foreground) ? ["--foreground"] : [];
            arguments.Add(parse.GetValue(name)!);
            WireGuardDaemon.Run(console, "userspace", arguments, cancellationToken);
            return Task.CompletedTask;
        });
        return command;
    }
}
