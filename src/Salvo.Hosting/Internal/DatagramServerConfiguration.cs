using System.Globalization;
using System.Net;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Configuration;
using Salvo.Server;

namespace Salvo.Hosting;

/// <summary>
/// Reads <see cref="DatagramServerOptions"/> from a configuration section key by key, without reflection (so it trims and
/// compiles ahead of time; the configuration binder's generator would stop at the options it cannot bind: the endpoint,
/// the socket template, the meter factory and the thread callback). A value that does not parse, and a key that is no
/// option, is kept as an error naming its key, reported when the host validates the options at start.
/// </summary>
internal sealed class DatagramServerConfiguration
{
    // The options an instance was read into: the validator runs on the same instance the configure step filled.
    private static readonly ConditionalWeakTable<DatagramServerOptions, DatagramServerConfiguration> s_read = new();

    private static readonly string[] s_keys =
    [
        nameof(DatagramServerOptions.EndPoint), nameof(DatagramServerOptions.Port), nameof(DatagramServerOptions.DualMode),
        nameof(DatagramServerOptions.SharePort), nameof(DatagramServerOptions.Workers), nameof(DatagramServerOptions.BatchSize),
        nameof(DatagramServerOptions.MaxDatagramSize), nameof(DatagramServerOptions.DeliverTruncated),
        nameof(DatagramServerOptions.ReceiveBufferSize), nameof(DatagramServerOptions.SendBufferSize),
        nameof(DatagramServerOptions.IoModel), nameof(DatagramServerOptions.Backend), nameof(DatagramServerOptions.Processing),
        nameof(DatagramServerOptions.QueueCapacity), nameof(DatagramServerOptions.QueueBytes),
        nameof(DatagramServerOptions.OverflowPolicy), nameof(DatagramServerOptions.DrainTimeout),
        nameof(DatagramServerOptions.BusyPoll), nameof(DatagramServerOptions.KernelBusyPollMicroseconds),
    ];

    private readonly IConfiguration _section;
    private readonly string _path;
    private readonly List<string> _errors = [];

    // Each key as the configuration spells it (keys match case-insensitively), for the errors.
    private readonly Dictionary<string, string> _spelled = new(StringComparer.OrdinalIgnoreCase);

    private DatagramServerConfiguration(IConfiguration section)
    {
        _section = section;
        _path = section is IConfigurationSection named ? named.Path : string.Empty;
    }

    private delegate bool Parser<T>(string text, out T value);

    /// <summary>The values and key errors of this section, in the order found.</summary>
    public IReadOnlyList<string> Errors => _errors;

    /// <summary>Sets every option <paramref name="section"/> has a key for; what does not parse is kept for <see cref="Of"/>.</summary>
    public static void Read(IConfiguration section, DatagramServerOptions options)
    {
        var read = new DatagramServerConfiguration(section);
        read.ReadInto(options);
        s_read.AddOrUpdate(options, read);
    }

    /// <summary>What was read into <paramref name="options"/>; null when they did not come from configuration.</summary>
    public static DatagramServerConfiguration? Of(DatagramServerOptions options) => s_read.TryGetValue(options, out var read) ? read : null;

    /// <summary>
    /// <paramref name="error"/> (one of <see cref="DatagramServerOptions.GetErrors"/>, which start with the option's name)
    /// with the configuration key it is about in front, or the section where it names no option.
    /// </summary>
    public string Locate(string error)
    {
        foreach (var key in s_keys)
        {
            if (error.StartsWith(key + " ", StringComparison.Ordinal))
            {
                return $"{KeyPath(key)}: {error}";
            }
        }

        return $"{(_path.Length == 0 ? "configuration" : _path)}: {error}";
    }

    private static bool Int(string text, out int value) => int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    private static bool Duration(string text, out TimeSpan value) => TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out value);

    private static bool Choice<T>(string text, out T value)
        where T : struct, Enum
    {
        // A number would pass Enum.TryParse; the names are what the documentation lists.
        value = default;
        return !Int(text, out _) && Enum.TryParse(text, ignoreCase: true, out value) && Enum.IsDefined(value);
    }

    private static bool EndPoint(string text, out IPEndPoint value)
    {
        var parsed = IPEndPoint.TryParse(text, out var endPoint);
        value = endPoint ?? new IPEndPoint(IPAddress.Loopback, 0);
        return parsed;
    }

    private static bool NullableInt(string text, out int? value)
    {
        value = null;
        if (text.Length == 0 || text.Equals("null", StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        var parsed = Int(text, out var number);
        value = number;
        return parsed;
    }

    private void ReadInto(DatagramServerOptions options)
    {
        foreach (var child in _section.GetChildren())
        {
            _spelled[child.Key] = child.Key;
            if (!s_keys.Contains(child.Key, StringComparer.OrdinalIgnoreCase))
            {
                _errors.Add($"{KeyPath(child.Key)}: not an option of the server (they are {string.Join(", ", s_keys)}).");
            }
        }

        Set<IPEndPoint>(nameof(options.EndPoint), EndPoint, "an IP endpoint (such as 127.0.0.1:7007 or [::1]:7007)", value => options.EndPoint = value);
        Set<int>(nameof(options.Port), Int, "a port number", value => options.Port = value);
        Set<bool>(nameof(options.DualMode), bool.TryParse, "true or false", value => options.DualMode = value);
        Set<bool>(nameof(options.SharePort), bool.TryParse, "true or false", value => options.SharePort = value);
        Set<int>(nameof(options.Workers), Int, "a whole number", value => options.Workers = value);
        Set<int>(nameof(options.BatchSize), Int, "a whole number", value => options.BatchSize = value);
        Set<int>(nameof(options.MaxDatagramSize), Int, "a number of bytes", value => options.MaxDatagramSize = value);
        Set<bool>(nameof(options.DeliverTruncated), bool.TryParse, "true or false", value => options.DeliverTruncated = value);
        Set<int?>(nameof(options.ReceiveBufferSize), NullableInt, "a number of bytes, or empty for the system default", value => options.ReceiveBufferSize = value);
        Set<int?>(nameof(options.SendBufferSize), NullableInt, "a number of bytes, or empty for the system default", value => options.SendBufferSize = value);
        Set<ServerIoModel>(nameof(options.IoModel), Choice, Names<ServerIoModel>(), value => options.IoModel = value);
        Set<DatagramBackend>(nameof(options.Backend), Choice, Names<DatagramBackend>(), value => options.Backend = value);
        Set<ServerProcessing>(nameof(options.Processing), Choice, Names<ServerProcessing>(), value => options.Processing = value);
        Set<int>(nameof(options.QueueCapacity), Int, "a whole number", value => options.QueueCapacity = value);
        Set<int>(nameof(options.QueueBytes), Int, "a number of bytes", value => options.QueueBytes = value);
        Set<QueueOverflowPolicy>(nameof(options.OverflowPolicy), Choice, Names<QueueOverflowPolicy>(), value => options.OverflowPolicy = value);
        Set<TimeSpan>(nameof(options.DrainTimeout), Duration, "a duration (such as 00:00:05)", value => options.DrainTimeout = value);
        Set<TimeSpan>(nameof(options.BusyPoll), Duration, "a duration (such as 00:00:00.0001)", value => options.BusyPoll = value);
        Set<int?>(nameof(options.KernelBusyPollMicroseconds), NullableInt, "a number of microseconds, or empty for not set", value => options.KernelBusyPollMicroseconds = value);
    }

    private static string Names<T>()
        where T : struct, Enum => "one of " + string.Join(", ", Enum.GetNames<T>());

    private void Set<T>(string key, Parser<T> parse, string expected, Action<T> set)
    {
        if (_section[key] is not { } text)
        {
            return;
        }

        if (parse(text.Trim(), out var value))
        {
            set(value);
        }
        else
        {
            _errors.Add($"{KeyPath(key)}: '{text}' is not {expected}.");
        }
    }

    private string KeyPath(string key)
    {
        var spelled = _spelled.GetValueOrDefault(key, key);
        return _path.Length == 0 ? spelled : ConfigurationPath.Combine(_path, spelled);
    }
}
