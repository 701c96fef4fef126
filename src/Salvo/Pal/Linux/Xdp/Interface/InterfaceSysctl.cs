using System.Net.Sockets;

namespace Salvo.Pal;

/// <summary>The per-interface IP settings the AF_XDP receive checks mirror, read from /proc/sys in the calling thread's network namespace.</summary>
internal static class InterfaceSysctl
{
    /// <summary>
    /// Whether the kernel drops a datagram to a unicast IP address that came in a broadcast or multicast Ethernet frame
    /// on <paramref name="interfaceName"/> (drop_unicast_in_l2_multicast: IPv4 takes "all" or the interface's, IPv6 the
    /// interface's, as net/ipv4/ip_input.c and net/ipv6/ip6_input.c read them). False, the kernel's default, when unreadable.
    /// </summary>
    public static bool DropsUnicastInL2Multicast(string interfaceName, AddressFamily family)
    {
        const string setting = "drop_unicast_in_l2_multicast";
        return family == AddressFamily.InterNetworkV6
            ? IsOn($"/proc/sys/net/ipv6/conf/{interfaceName}/{setting}")
            : IsOn($"/proc/sys/net/ipv4/conf/all/{setting}") || IsOn($"/proc/sys/net/ipv4/conf/{interfaceName}/{setting}");
    }

    private static bool IsOn(string path)
    {
        try
        {
            return File.ReadAllText(path).Trim() is { Length: > 0 } value && value != "0";
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }
}
