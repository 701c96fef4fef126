using System.Globalization;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Connections;

/// <summary>How many local ports the kernel hands out to connections from one source address to one destination.</summary>
internal static class EphemeralPorts
{
    /// <summary>The kernel default range 32768..60999 (net/ipv4/af_inet.c, inet_init_net), used where the sysctl cannot be read.</summary>
    private const int DefaultCount = 60_999 - 32_768 + 1;

    /// <summary>Ports in net.ipv4.ip_local_port_range ("low high", both included), which IPv6 connections use too.</summary>
    public static int Count()
    {
        var parts = (ProcFiles.Sysctl("net/ipv4/ip_local_port_range") ?? string.Empty).Split((char[])['\t', ' '], StringSplitOptions.RemoveEmptyEntries);
        return parts.Length == 2
               && int.TryParse(parts[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out var low)
               && int.TryParse(parts[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out var high)
               && high >= low
            ? high - low + 1
            : DefaultCount;
    }
}
