using System.Globalization;
using Salvo.Perf.Measurement;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Doctor;

/// <summary>The Linux settings and counters that limit UDP, read through the platform's <see cref="ProcFiles"/>.</summary>
internal static class SysctlChecks
{
    /// <summary>
    /// Socket buffer ceilings below this make bursts overflow (quic-go asks for 7.5 MB; Salvo's loopback run
    /// asks for 4 MiB per socket).
    /// </summary>
    private const long RecommendedBufferMax = 7_500_000;

    /// <summary>The value to recommend: 25 MiB, enough for about 170 ms at 1 Gbit/s.</summary>
    private const long SuggestedBufferMax = 26_214_400;

    public static IEnumerable<Finding> Run()
    {
        yield return new Finding("kernel", FindingStatus.Info,
            ProcFiles.Sysctl("kernel/osrelease") ?? Environment.OSVersion.VersionString);

        foreach (var name in new[] { "rmem_max", "wmem_max" })
        {
            yield return BufferMax(name);
        }

        foreach (var name in new[] { "rmem_default", "wmem_default" })
        {
            var value = ReadLong($"net/core/{name}");
            yield return value is null
                ? Missing($"net.core.{name}")
                : new Finding($"net.core.{name}", FindingStatus.Info, Bytes(value.Value),
                    "What a socket gets without asking; Salvo sockets ask for 4 MiB (DatagramSocketOptions.ReceiveBufferSize/SendBufferSize), capped at the max above.");
        }

        yield return UdpMem();
        yield return Backlog();

        var snmp = UdpSnmp.Read();
        foreach (var counter in new[] { "RcvbufErrors", "SndbufErrors", "InErrors", "NoPorts" })
        {
            yield return Counter(snmp, counter);
        }

        yield return IoUring();
    }

    public static IEnumerable<Finding> Interfaces()
    {
        foreach (var name in ProcFiles.NetworkInterfaces().Order(StringComparer.Ordinal))
        {
            var mtu = ParseLong(ProcFiles.NetworkInterfaceAttribute(name, "mtu"));
            if (mtu is null)
            {
                continue;
            }

            var payload = Math.Min(mtu.Value - 28, 65_507);
            yield return new Finding($"mtu {name}", FindingStatus.Info,
                string.Create(CultureInfo.InvariantCulture, $"{mtu.Value} (largest unfragmented IPv4 UDP payload {payload})"),
                name == "lo" ? null : "Keep datagrams at or under the path MTU minus 28 (IPv4) or 48 (IPv6) bytes, or fragments multiply loss.");
        }
    }

    private static Finding BufferMax(string name)
    {
        var value = ReadLong($"net/core/{name}");
        if (value is null)
        {
            return Missing($"net.core.{name}");
        }

        return value.Value < RecommendedBufferMax
            ? new Finding($"net.core.{name}", FindingStatus.Warn, Bytes(value.Value),
                $"Sockets cannot get more than this; bursts overflow and drop. sysctl -w net.core.{name}={SuggestedBufferMax}")
            : new Finding($"net.core.{name}", FindingStatus.Ok, Bytes(value.Value));
    }

    private static Finding UdpMem()
    {
        var text = ProcFiles.Sysctl("net/ipv4/udp_mem");
        if (text is null)
        {
            return Missing("net.ipv4.udp_mem");
        }

        var pages = text.Split((char[])[' ', '\t'], StringSplitOptions.RemoveEmptyEntries);
        var described = pages.Length == 3 && pages.All(p => long.TryParse(p, CultureInfo.InvariantCulture, out _))
            ? string.Create(CultureInfo.InvariantCulture, $"{string.Join(' ', pages)} pages (pressure at {long.Parse(pages[1], CultureInfo.InvariantCulture) * 4096 / (1 << 20)} MiB, max {long.Parse(pages[2], CultureInfo.InvariantCulture) * 4096 / (1 << 20)} MiB of all UDP sockets)")
            : text;
        return new Finding("net.ipv4.udp_mem", FindingStatus.Info, described,
            "The kernel's ceiling for all UDP buffers together (4 KiB pages); sized from RAM at boot, rarely the limit.");
    }

    private static Finding Backlog()
    {
        var value = ReadLong("net/core/netdev_max_backlog");
        if (value is null)
        {
            return Missing("net.core.netdev_max_backlog");
        }

        return value.Value < 2000
            ? new Finding("net.core.netdev_max_backlog", FindingStatus.Warn, value.Value.ToString(CultureInfo.InvariantCulture),
                "Packets queued per CPU before the stack drops them (loopback too); raise for high packet rates: sysctl -w net.core.netdev_max_backlog=5000")
            : new Finding("net.core.netdev_max_backlog", FindingStatus.Ok, value.Value.ToString(CultureInfo.InvariantCulture));
    }

    private static Finding Counter(IReadOnlyDictionary<string, long> snmp, string name)
    {
        if (!snmp.TryGetValue(name, out var value))
        {
            return Missing($"Udp {name}");
        }

        var recommendation = name switch
        {
            "RcvbufErrors" => "Datagrams dropped because a receive buffer was full: read faster (batches, more workers) or raise rmem_max and SO_RCVBUF.",
            "SndbufErrors" => "Sends refused for a full send buffer: raise wmem_max and SO_SNDBUF, or pace the sender.",
            "InErrors" => "Datagrams dropped on receive (buffer full, bad checksum): see RcvbufErrors.",
            _ => "Datagrams to ports nobody listened on (ICMP port unreachable answers).",
        };
        return new Finding($"Udp {name} (since boot)", value > 0 && name != "NoPorts" ? FindingStatus.Warn : FindingStatus.Info,
            value.ToString("N0", CultureInfo.InvariantCulture), value > 0 ? recommendation : null);
    }

    private static Finding IoUring()
    {
        var value = ReadLong("kernel/io_uring_disabled");
        return value switch
        {
            null => new Finding("io_uring", FindingStatus.Info, ProcFiles.HasSysctls ? "no io_uring_disabled knob (kernel before 6.6, or io_uring not built)" : "not Linux"),
            0 => new Finding("io_uring", FindingStatus.Ok, "enabled for all processes (kernel.io_uring_disabled = 0)"),
            1 => new Finding("io_uring", FindingStatus.Info, "restricted to kernel.io_uring_group (kernel.io_uring_disabled = 1)", "sysctl -w kernel.io_uring_disabled=0 to allow it for every process."),
            _ => new Finding("io_uring", FindingStatus.Info, "disabled (kernel.io_uring_disabled = 2)", "Only Salvo's IoUring backend needs it (it falls back to LinuxBatched); the default backend uses recvmmsg/sendmmsg."),
        };
    }

    private static Finding Missing(string check) => new(check, FindingStatus.Info, "not available on this system");

    /// <summary>The sysctl <paramref name="name"/> ("net/core/rmem_max") as a number, or null.</summary>
    internal static long? ReadLong(string name) => ParseLong(ProcFiles.Sysctl(name));

    private static long? ParseLong(string? text) =>
        text is not null && long.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var value) ? value : null;

    private static string Bytes(long value) => value >= 1 << 20
        ? string.Create(CultureInfo.InvariantCulture, $"{value:N0} bytes ({value / 1048576.0:F1} MiB)")
        : string.Create(CultureInfo.InvariantCulture, $"{value:N0} bytes ({value / 1024.0:F0} KiB)");
}
