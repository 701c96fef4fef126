using System.Globalization;
using System.Net;
using Salvo.WireGuard.Metrics;

namespace Salvo.WireGuard;

/// <summary><c>up CONFIG [--name NAME] [-t|--time SECONDS] [--metrics-listen ADDR:PORT [--metrics-per-peer]]</c>.</summary>
internal sealed record UpArguments(string Config, string? Name, double? Seconds)
{
    /// <summary>The Prometheus scrape endpoint; null when off. Defaults to null.</summary>
    public MetricsOptions? Metrics { get; init; }

    public static UpArguments Parse(ReadOnlySpan<string> args)
    {
        string? config = null;
        string? name = null;
        double? seconds = null;
        IPEndPoint? metricsListen = null;
        var perPeer = false;
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--name":
                    name = Value(args, ref i, "up");
                    break;
                case "-t" or "--time" or "--duration":
                    var text = Value(args, ref i, "up");
                    if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) || !(value > 0) || double.IsInfinity(value))
                    {
                        throw new DaemonException($"up: {args[i - 1]}: '{text}' is not a number of seconds above 0");
                    }

                    seconds = seconds is null ? value : throw new DaemonException("up: -t/--time given twice; give one");
                    break;
                case MetricsOptions.ListenOption:
                    var listen = MetricsOptions.ParseListen(Value(args, ref i, "up"), "up");
                    metricsListen = metricsListen is null ? listen : throw new DaemonException($"up: {MetricsOptions.ListenOption} given twice; give one");
                    break;
                case "--metrics-per-peer":
                    perPeer = true;
                    break;
                case var option when option.StartsWith('-') && option.Length > 1:
                    throw new DaemonException($"up: unknown option '{option}'");
                default:
                    config = config is null ? args[i] : throw new DaemonException($"up: one CONFIG only; '{args[i]}' is a second");
                    break;
            }
        }

        if (perPeer && metricsListen is null)
        {
            throw new DaemonException($"up: --metrics-per-peer needs {MetricsOptions.ListenOption} ADDR:PORT");
        }

        return new UpArguments(config ?? throw new DaemonException("up: CONFIG: give a wg/wg-quick configuration file"), name, seconds)
        {
            Metrics = metricsListen is null ? null : new MetricsOptions(metricsListen, perPeer),
        };
    }

    /// <summary>The value after option <c>args[i]</c>, moving past it.</summary>
    public static string Value(ReadOnlySpan<string> args, ref int i, string command) =>
        ++i < args.Length ? args[i] : throw new DaemonException($"{command}: {args[i - 1]} needs a value");
}

/// <summary><c>show [IFACE|all] [--json]</c>: null <see cref="Name"/> is every interface.</summary>
internal sealed record ShowArguments(string? Name, bool Json)
{
    public static ShowArguments Parse(ReadOnlySpan<string> args)
    {
        string? name = null;
        var json = false;
        foreach (var argument in args)
        {
            switch (argument)
            {
                case "--json":
                    json = true;
                    break;
                case var option when option.StartsWith('-') && option.Length > 1:
                    throw new DaemonException($"show: unknown option '{option}'");
                default:
                    name = name is null ? argument : throw new DaemonException($"show: one IFACE only; '{argument}' is a second");
                    break;
            }
        }

        return new ShowArguments(name is "all" ? null : name, json);
    }
}

/// <summary>wireguard-go's <c>[-f|--foreground] IFACE</c>.</summary>
internal sealed record UserspaceArguments(string InterfaceName, bool Foreground)
{
    public static UserspaceArguments Parse(ReadOnlySpan<string> args)
    {
        string? name = null;
        var foreground = false;
        foreach (var argument in args)
        {
            switch (argument)
            {
                case "-f" or "--foreground":
                    foreground = true;
                    break;
                default:
                    // Any other word is the name, "-x" too: the name's own check refuses it, naming IFACE.
                    name = name is null ? argument : throw new DaemonException($"one IFACE only; '{argument}' is a second (or an unknown command: up, show)");
                    break;
            }
        }

        return new UserspaceArguments(name ?? throw new DaemonException("IFACE: give the interface name"), foreground);
    }
}
