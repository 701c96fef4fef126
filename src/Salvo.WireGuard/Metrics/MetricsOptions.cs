using System.Globalization;
using System.Net;

namespace Salvo.WireGuard.Metrics;

/// <summary>
/// <c>--metrics-listen ADDR:PORT</c> and <c>--metrics-per-peer</c>: where the Prometheus scrape endpoint listens, and
/// whether it shows each peer's series whatever the number of peers.
/// </summary>
/// <param name="Listen">The address and TCP port of <c>GET /metrics</c>.</param>
/// <param name="PerPeer">Each peer's series even above <see cref="PerPeerLimit"/> peers. Defaults to false.</param>
internal sealed record MetricsOptions(IPEndPoint Listen, bool PerPeer)
{
    /// <summary>
    /// Above this many peers only the tunnel-wide series are shown unless <see cref="PerPeer"/>: 10,000 peers are
    /// about 50,000 series and 3.5 MB of text a scrape (docs/benchmarks.md), more than a default Prometheus wants.
    /// </summary>
    public const int PerPeerLimit = 1_000;

    /// <summary>The option's name, for messages.</summary>
    public const string ListenOption = "--metrics-listen";

    /// <summary>
    /// The wg-quick form's way to the same endpoint: wg-quick runs <c>wireguard-salvo IFACE</c> with no options of
    /// ours, but passes its environment on (a systemd drop-in for <c>wg-quick@.service</c> can set it).
    /// </summary>
    public const string ListenVariable = "WIREGUARD_SALVO_METRICS_LISTEN";

    /// <summary><see cref="PerPeer"/> for the wg-quick form: "1" turns it on.</summary>
    public const string PerPeerVariable = "WIREGUARD_SALVO_METRICS_PER_PEER";

    /// <summary>
    /// The options <see cref="ListenVariable"/> and <see cref="PerPeerVariable"/> ask for, or null when the first is
    /// unset or empty; a bad value is refused naming the variable.
    /// </summary>
    public static MetricsOptions? FromEnvironment(Func<string, string?> environment)
    {
        ArgumentNullException.ThrowIfNull(environment);
        var listen = environment(ListenVariable);
        var perPeer = environment(PerPeerVariable);
        if (perPeer is not (null or "" or "0" or "1"))
        {
            throw new DaemonException($"{PerPeerVariable}: '{perPeer}' is not 0 or 1");
        }

        if (string.IsNullOrEmpty(listen))
        {
            return perPeer == "1" ? throw new DaemonException($"{PerPeerVariable} needs {ListenVariable} set to PORT or ADDR:PORT") : null;
        }

        return new MetricsOptions(ParseListen(listen, ListenVariable, ListenVariable), perPeer == "1");
    }

    /// <summary>
    /// <c>PORT</c> (loopback: a scrape endpoint is opt-in to the network), <c>ADDR:PORT</c> or <c>[IPv6]:PORT</c>;
    /// port 0 takes a free one. A bad value is refused naming the option.
    /// </summary>
    public static IPEndPoint ParseListen(string text, string command) => ParseListen(text, command, ListenOption);

    private static IPEndPoint ParseListen(string text, string command, string option)
    {
        ArgumentNullException.ThrowIfNull(text);
        if (ushort.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var port))
        {
            return new IPEndPoint(IPAddress.Loopback, port);
        }

        // IPEndPoint.TryParse takes "1.2.3.4" alone (port 0) and ports past 65,535 never; a port is required here.
        var colon = text.LastIndexOf(':');
        var closing = text.LastIndexOf(']');
        if (colon > 0 && colon > closing && (closing >= 0 || text.IndexOf(':', StringComparison.Ordinal) == colon) &&
            ushort.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out _) &&
            IPEndPoint.TryParse(text, out var endpoint))
        {
            return endpoint;
        }

        var where = command == option ? option : $"{command}: {option}";
        throw new DaemonException($"{where}: '{text}' is not PORT or ADDR:PORT (e.g. 9586, 127.0.0.1:9586, [::1]:9586)");
    }
}
