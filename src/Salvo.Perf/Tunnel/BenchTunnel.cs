using System.Globalization;

namespace Salvo.Perf.Tunnel;

/// <summary>Which program runs one end of a bench tunnel.</summary>
internal enum TunnelEnd
{
    Salvo,
    WireGuardGo,
}

/// <summary>
/// One tunnel of <c>salvo tunnel bench</c>: what runs in namespace A (the initiator: its ping starts the handshake,
/// and the iperf3 client sends from there) and in B, over 198.19.<see cref="Subnet"/>.0/24, each end listening on
/// UDP <see cref="Port"/> in its own namespace. <see cref="OverTcp"/> sets <c>TcpFallback = only</c> at A, so every
/// message of that tunnel goes over the TCP fallback, as it does while UDP is blocked.
/// </summary>
internal sealed record BenchTunnel(string Name, TunnelEnd EndA, TunnelEnd EndB, int Subnet, string DevicePrefix, bool OverTcp = false)
{
    /// <summary>Salvo with itself (over UDP and over the TCP fallback), the two interop pairs (Salvo as either end), and wireguard-go with itself.</summary>
    public static IReadOnlyList<BenchTunnel> All { get; } =
    [
        new("salvo <-> salvo", TunnelEnd.Salvo, TunnelEnd.Salvo, 0, "sb"),
        new("salvo <-> wireguard-go", TunnelEnd.Salvo, TunnelEnd.WireGuardGo, 2, "sw"),
        new("wireguard-go <-> salvo", TunnelEnd.WireGuardGo, TunnelEnd.Salvo, 3, "ws"),
        new("wireguard-go <-> wireguard-go", TunnelEnd.WireGuardGo, TunnelEnd.WireGuardGo, 1, "wg"),
        new("salvo <-> salvo over TCP", TunnelEnd.Salvo, TunnelEnd.Salvo, 4, "st", OverTcp: true),
    ];

    public int Port => 51820 + Subnet;

    /// <summary>198.19.<see cref="Subnet"/>.<paramref name="host"/>: 1 in A, 2 in B.</summary>
    public string Address(int host) => string.Create(CultureInfo.InvariantCulture, $"198.19.{Subnet}.{host}");

    /// <summary>
    /// The interface on <paramref name="side"/> ('a' or 'b') for the bench process <paramref name="tag"/>: at most
    /// 2 + 1 + 7 digits of a process id = 10 characters, under the kernel's 15 (IFNAMSIZ 16 with the NUL).
    /// </summary>
    public string DeviceName(char side, string tag) => $"{DevicePrefix}{side}{tag}";

    /// <summary>The interfaces a Salvo end of this tunnel had, whose status files a killed bench leaves behind.</summary>
    public IEnumerable<string> SalvoDeviceNames(string tag)
    {
        if (EndA == TunnelEnd.Salvo)
        {
            yield return DeviceName('a', tag);
        }

        if (EndB == TunnelEnd.Salvo)
        {
            yield return DeviceName('b', tag);
        }
    }
}
