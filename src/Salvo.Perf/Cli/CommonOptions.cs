using System.CommandLine;
using System.Globalization;

namespace Salvo.Perf.Cli;

/// <summary>Options shared by several commands, with their validation.</summary>
internal static class CommonOptions
{
    /// <summary>The TCP control and UDP data port of server/client: one number, as iperf3's 5201.</summary>
    public const int DefaultPort = 47010;

    /// <summary>The most receive workers any command's -w/--workers takes: a <see cref="Salvo.Server.DatagramServer"/>'s own limit.</summary>
    public const int MaxWorkers = Salvo.Server.DatagramServerOptions.MaxWorkers;

    /// <summary>The longest duration any seconds option takes: a day.</summary>
    public const double MaxSeconds = 86_400;

    /// <summary>--json / -J, on every command.</summary>
    public static Option<bool> Json { get; } = new("--json", "-J")
    {
        Description = "Print JSON instead of text: one document, or one line per test for server. Defaults to off.",
        Recursive = true,
    };

    /// <summary>--json-stream, on every command.</summary>
    public static Option<bool> JsonStream { get; } = new("--json-stream")
    {
        Description = "Print newline-delimited JSON events while running; the last line is the summary. Defaults to off.",
        Recursive = true,
    };

    /// <summary>Sets the console's format from the parsed flags.</summary>
    public static void ApplyFormat(ParseResult parse, CliConsole console)
    {
        console.Format = parse.GetValue(JsonStream) ? OutputFormat.JsonStream
            : parse.GetValue(Json) ? OutputFormat.Json
            : OutputFormat.Text;
    }

    /// <summary>-l/--length as a list of sizes.</summary>
    public static Option<int[]> Lengths(int[] defaults, int min, string what) => new("--length", "-l")
    {
        Description = $"{what}, comma-separated, {Number(min)} to {Number(ValueParsers.MaxUdpPayload)} bytes each. Defaults to {string.Join(',', defaults)}.",
        HelpName = "BYTES[,BYTES...]",
        Arity = ArgumentArity.ExactlyOne,
        DefaultValueFactory = _ => defaults,
        CustomParser = result =>
        {
            var sizes = ValueParsers.ParseSizes(string.Join(',', result.Tokens.Select(t => t.Value)), "-l/--length", min, out var error);
            if (error is not null)
            {
                result.AddError(error);
            }

            return sizes;
        },
    };

    /// <summary>An integer option that must lie in [min, max]; the error names the option.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="alias">Its short alias, or null.</param>
    /// <param name="helpName">What the value is, as --help shows it (COUNT, BYTES, MS), instead of the option's own name.</param>
    /// <param name="defaultValue">The default.</param>
    /// <param name="min">The smallest value allowed.</param>
    /// <param name="max">The largest value allowed.</param>
    /// <param name="description">Help text; the range and "Defaults to ..." are appended.</param>
    public static Option<int> Int(string name, string? alias, string helpName, int defaultValue, int min, int max, string description)
    {
        var option = alias is null ? new Option<int>(name) : new Option<int>(name, alias);
        option.HelpName = helpName;
        option.Description = $"{description} {Number(min)} to {Number(max)}. Defaults to {defaultValue.ToString(CultureInfo.InvariantCulture)}.";
        option.DefaultValueFactory = _ => defaultValue;
        option.Validators.Add(result =>
        {
            if (TryGetValue(result, out int value) && (value < min || value > max))
            {
                result.AddError($"{Names(name, alias)}: {value} is outside {min}..{max}.");
            }
        });
        return option;
    }

    /// <summary>A number that must lie in [min, max] (NaN refused); the error names the option and the unit.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="alias">Its short alias, or null.</param>
    /// <param name="helpName">What the value is, as --help shows it, instead of the option's own name.</param>
    /// <param name="defaultValue">The default.</param>
    /// <param name="min">The smallest value allowed.</param>
    /// <param name="max">The largest value allowed.</param>
    /// <param name="unit">The unit, for the error message.</param>
    /// <param name="description">Help text; the range and "Defaults to ..." are appended.</param>
    public static Option<double> Double(string name, string? alias, string helpName, double defaultValue, double min, double max, string unit, string description)
    {
        var option = alias is null ? new Option<double>(name) : new Option<double>(name, alias);
        option.HelpName = helpName;
        option.Description = $"{description} {Number(min)} to {Number(max)} {unit}. Defaults to {defaultValue.ToString(CultureInfo.InvariantCulture)}.";
        option.DefaultValueFactory = _ => defaultValue;
        option.Validators.Add(result =>
        {
            if (TryGetValue(result, out double value) && (double.IsNaN(value) || value < min || value > max))
            {
                result.AddError($"{Names(name, alias)}: {value.ToString(CultureInfo.InvariantCulture)} is outside {min.ToString(CultureInfo.InvariantCulture)}..{max.ToString(CultureInfo.InvariantCulture)} {unit}.");
            }
        });
        return option;
    }

    /// <summary>A word from a fixed set; the error names the option and the choices.</summary>
    public static Option<string> Choice(string name, string description, params string[] choices)
    {
        var option = new Option<string>(name)
        {
            Description = $"{description} Defaults to {choices[0]}.",
            DefaultValueFactory = _ => choices[0],
            HelpName = string.Join('|', choices),
        };
        option.Validators.Add(result =>
        {
            if (TryGetValue(result, out string? value) && !choices.Contains(value, StringComparer.Ordinal))
            {
                result.AddError($"{name}: '{value}' is not one of {string.Join(", ", choices)}.");
            }
        });
        return option;
    }

    /// <summary>
    /// One of an enum's names, in any case; the error names the option and the names. A number is refused: the
    /// runtime's own parse takes "-1" or "7" for an enum and the value then failed deep inside with a .NET parameter
    /// message.
    /// </summary>
    /// <param name="name">The option's name.</param>
    /// <param name="defaultValue">The default.</param>
    /// <param name="description">Help text; the names and "Defaults to ..." are appended.</param>
    public static Option<T> Enum<T>(string name, T defaultValue, string description)
        where T : struct, Enum
    {
        var names = System.Enum.GetNames<T>();
        return new Option<T>(name)
        {
            Description = $"{description} One of {string.Join(", ", names)}. Defaults to {defaultValue}.",
            HelpName = string.Join('|', names),
            DefaultValueFactory = _ => defaultValue,
            CustomParser = result =>
            {
                var text = result.Tokens.Count == 1 ? result.Tokens[0].Value : string.Empty;
                var match = names.FirstOrDefault(n => string.Equals(n, text, StringComparison.OrdinalIgnoreCase));
                if (match is null)
                {
                    result.AddError($"{name}: '{text}' is not one of {string.Join(", ", names)}.");
                    return defaultValue;
                }

                return System.Enum.Parse<T>(match);
            },
        };
    }

    /// <summary>A duration in seconds, greater than 0 and at most a day.</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="alias">Its short alias, or null.</param>
    /// <param name="defaultValue">The default.</param>
    /// <param name="description">Help text; the range and "Defaults to ..." are appended.</param>
    /// <param name="min">The smallest value allowed.</param>
    /// <param name="allowZero">Whether 0 is allowed (an interval that means "none"); otherwise the value must be above <paramref name="min"/>.</param>
    public static Option<double> Seconds(string name, string? alias, double defaultValue, string description, double min = 0, bool allowZero = false)
    {
        var option = alias is null ? new Option<double>(name) : new Option<double>(name, alias);
        option.Description = $"{description} {SecondsRange(min, allowZero)}. Defaults to {defaultValue.ToString(CultureInfo.InvariantCulture)}.";
        option.HelpName = "SECONDS";
        option.DefaultValueFactory = _ => defaultValue;
        option.Validators.Add(result =>
        {
            if (TryGetValue(result, out double value) && SecondsProblem(Names(name, alias), value, min, allowZero) is { } problem)
            {
                result.AddError(problem);
            }
        });
        return option;
    }

    /// <summary>A duration in seconds, more than 0 and at most a day, with no default value: left out, it means "until stopped".</summary>
    /// <param name="name">The option's name.</param>
    /// <param name="alias">Its short alias, or null.</param>
    /// <param name="description">Help text; the range and <paramref name="whenLeftOut"/> are appended.</param>
    /// <param name="whenLeftOut">What happens without it, for "Defaults to ...".</param>
    public static Option<double?> OptionalSeconds(string name, string? alias, string description, string whenLeftOut)
    {
        var option = alias is null ? new Option<double?>(name) : new Option<double?>(name, alias);
        option.Description = $"{description} {SecondsRange(0, allowZero: false)}. Defaults to {whenLeftOut}.";
        option.HelpName = "SECONDS";
        option.Validators.Add(result =>
        {
            if (TryGetValue(result, out double? value) && value is { } seconds && SecondsProblem(Names(name, alias), seconds, 0, allowZero: false) is { } problem)
            {
                result.AddError(problem);
            }
        });
        return option;
    }

    /// <summary>-b/--bitrate in bits per second (K/M/G suffixes; 0 = unlimited).</summary>
    public static Option<long> Bitrate(string defaultText) => new("--bitrate", "-b")
    {
        Description = $"Target rate in bits/s over all flows, 0 to 10T, with a K, M, G or T suffix (powers of 1000); 0 = unlimited. Defaults to {defaultText}.",
        HelpName = "RATE",
        DefaultValueFactory = _ => ValueParsers.ParseRate(defaultText, "-b", out string? _),
        CustomParser = result =>
        {
            var rate = ValueParsers.ParseRate(result.Tokens.Count == 1 ? result.Tokens[0].Value : string.Empty, "-b/--bitrate", out var error);
            if (error is not null)
            {
                result.AddError(error);
            }

            return rate;
        },
    };

    /// <summary>-p/--port.</summary>
    public static Option<int> Port(int min) =>
        Int("--port", "-p", "PORT", DefaultPort, min, 65_535, "TCP control and UDP data port.");

    /// <summary>-B/--bind: the local address to bind.</summary>
    public static Option<string> Bind(string description) => new("--bind", "-B")
    {
        Description = $"{description} Defaults to 127.0.0.1 (loopback only; pass 0.0.0.0 or :: to listen on every interface).",
        HelpName = "ADDRESS",
        DefaultValueFactory = _ => "127.0.0.1",
    };

    /// <summary>-B/--bind for the commands that run both ends on this host: which loopback address, IPv4 or IPv6.</summary>
    public static Option<string> LoopbackBind() => new("--bind", "-B")
    {
        Description = "Loopback address every socket binds and sends to: 127.0.0.1 (IPv4) or ::1 (IPv6). Defaults to 127.0.0.1.",
        HelpName = "ADDRESS",
        DefaultValueFactory = _ => "127.0.0.1",
    };

    /// <summary>Parses a <see cref="LoopbackBind"/> value: an address this host's loopback interface answers, or fails naming the option.</summary>
    public static System.Net.IPAddress ParseLoopbackAddress(string text)
    {
        var address = ParseAddress(text, "-B/--bind");
        return System.Net.IPAddress.IsLoopback(address)
            ? address
            : throw new CliException($"-B/--bind: {address} is not a loopback address; this command runs both ends on this host (127.0.0.1 or ::1).");
    }

    /// <summary>Parses an address option or fails naming it.</summary>
    public static System.Net.IPAddress ParseAddress(string text, string option) =>
        System.Net.IPAddress.TryParse(text, out var address)
            ? address
            : throw new CliException($"{option}: '{text}' is not an IP address.");

    /// <summary>
    /// Reads a converted value inside a validator; false when the token did not convert (the parser has
    /// already reported that error, naming the option).
    /// </summary>
    public static bool TryGetValue<T>(System.CommandLine.Parsing.OptionResult result, out T value)
    {
        try
        {
            value = result.GetValueOrDefault<T>();
            return true;
        }
        catch (InvalidOperationException)
        {
            value = default!;
            return false;
        }
    }

    private static string Names(string name, string? alias) => alias is null ? name : $"{alias}/{name}";

    /// <summary>A bound as help states it: "1,024", "0.01" (as the tables in docs/cli.md write numbers).</summary>
    public static string Number(double value) =>
        value.ToString(value == Math.Floor(value) ? "N0" : "0.###", CultureInfo.InvariantCulture);

    private static string SecondsRange(double min, bool allowZero) => (min, allowZero) switch
    {
        (0d, false) => $"More than 0, at most {Number(MaxSeconds)}",
        (0d, true) => $"0 to {Number(MaxSeconds)}",
        (_, true) => $"0, or {Number(min)} to {Number(MaxSeconds)}",
        _ => $"{Number(min)} to {Number(MaxSeconds)}",
    };

    private static string? SecondsProblem(string names, double value, double min, bool allowZero)
    {
        if ((allowZero && value == 0) || (!double.IsNaN(value) && value >= min && value <= MaxSeconds && (min > 0 || value > 0)))
        {
            return null;
        }

        var lowest = min == 0 ? "above 0" : $"at least {min.ToString(CultureInfo.InvariantCulture)}";
        return $"{names}: {value.ToString(CultureInfo.InvariantCulture)} seconds is outside the allowed range ({lowest}, at most {MaxSeconds.ToString(CultureInfo.InvariantCulture)}).";
    }
}
