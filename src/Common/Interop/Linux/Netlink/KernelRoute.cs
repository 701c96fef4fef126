using System.Globalization;
using System.Net;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Interop.Linux;

/// <summary>
/// One route of the kernel's tables as an RTM_GETROUTE dump gives it (struct rtmsg and its attributes,
/// include/uapi/linux/rtnetlink.h): enough to tell whether a prefix is taken, and by what, as 'ip route' would print it.
/// </summary>
internal readonly record struct KernelRoute(IPAddress Destination, byte PrefixLength, uint Table, int InterfaceIndex, byte Protocol, byte Type, uint Metric, bool Multipath)
{
    /// <summary>The destination as ip(8) prints it: <c>198.18.0.0/24</c>.</summary>
    public string Prefix => string.Create(CultureInfo.InvariantCulture, $"{Destination}/{PrefixLength}");

    /// <summary>
    /// Reads one RTM_NEWROUTE message of a dump (header included); false for anything else: another message type, a
    /// family other than IPv4 and IPv6, or a message too short or malformed to be a route.
    /// </summary>
    public static bool TryRead(ReadOnlySpan<byte> message, out KernelRoute route)
    {
        route = default;
        const int attributesStart = NetlinkMessages.HeaderLength + 12;
        if (message.Length < attributesStart || NetlinkMessages.Read<ushort>(message, 4) != RTM_NEWROUTE)
        {
            return false;
        }

        var family = message[16];
        var addressLength = family switch { 2 => 4, 10 => 16, _ => 0 };
        var prefixLength = message[17];
        if (addressLength == 0 || prefixLength > addressLength * 8)
        {
            return false;
        }

        var destination = new byte[addressLength];
        uint table = message[20];
        var interfaceIndex = 0;
        uint metric = 0;
        var multipath = false;
        var attributes = message[attributesStart..];
        while (attributes.Length >= 4)
        {
            var length = NetlinkMessages.Read<ushort>(attributes, 0);
            if (length < 4 || length > attributes.Length)
            {
                return false;
            }

            var value = attributes[4..length];
            switch (NetlinkMessages.Read<ushort>(attributes, 2))
            {
                case RTA_DST when value.Length == addressLength:
                    value.CopyTo(destination);
                    break;
                case RTA_OIF when value.Length >= 4:
                    interfaceIndex = NetlinkMessages.Read<int>(value, 0);
                    break;
                case RTA_PRIORITY when value.Length >= 4:
                    metric = NetlinkMessages.Read<uint>(value, 0);
                    break;
                case RTA_TABLE when value.Length >= 4:
                    table = NetlinkMessages.Read<uint>(value, 0);
                    break;
                case RTA_MULTIPATH:
                    multipath = true;
                    break;
            }

            attributes = attributes[Math.Min(NetlinkMessages.Align(length), attributes.Length)..];
        }

        // The kernel keeps a route's destination with its host bits cleared (it refuses an IPv4 one that has them).
        route = new KernelRoute(new IPAddress(destination), prefixLength,
            table, interfaceIndex, message[21], message[23], metric, multipath);
        return true;
    }

    /// <summary>The route in ip-route(8)'s words: <c>198.18.0.0/24 dev eth0 table main proto kernel</c>.</summary>
    public string Describe(Func<int, string?> interfaceName)
    {
        ArgumentNullException.ThrowIfNull(interfaceName);
        var type = Type switch { 1 => null, 2 => "local", 3 => "broadcast", 6 => "blackhole", 7 => "unreachable", 8 => "prohibit", 9 => "throw", _ => $"type {Type}" };
        var device = Multipath ? "multipath" : InterfaceIndex > 0 ? $"dev {interfaceName(InterfaceIndex) ?? $"#{InterfaceIndex}"}" : null;
        var table = Table switch { 254 => "main", 255 => "local", 253 => "default", _ => Table.ToString(CultureInfo.InvariantCulture) };
        var protocol = Protocol switch { 2 => "kernel", 3 => "boot", 4 => "static", 16 => "dhcp", _ => Protocol.ToString(CultureInfo.InvariantCulture) };
        var parts = new[] { type, Prefix, device, $"table {table}", $"proto {protocol}", Metric > 0 ? $"metric {Metric}" : null };
        return string.Join(' ', parts.Where(part => part is not null));
    }
}
