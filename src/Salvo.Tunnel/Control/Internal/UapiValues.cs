using System.Net;
using System.Net.Sockets;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Control;

/// <summary>
/// The value syntax of the configuration protocol, as strict as wireguard-go reads it (Go's strconv.ParseUint and
/// net/netip): decimal numbers without sign or spaces, IPv4 only as a full dotted quad without leading zeros, IPv6
/// only in brackets when a port follows, and a prefix length always written. <see cref="IPAddress.TryParse(string?, out IPAddress?)"/>
/// alone is looser: it reads "1.2.3" as 1.2.0.3 and "010.0.0.1" as octal.
/// </summary>
internal static class UapiValues
{
    private static readonly System.Buffers.SearchValues<char> HexDigits =
        System.Buffers.SearchValues.Create("0123456789abcdefABCDEF");

    private static readonly System.Buffers.SearchValues<char> ZoneCharacters =
        System.Buffers.SearchValues.Create("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-");

    /// <summary>A decimal number up to <paramref name="maximum"/>: ASCII digits only, leading zeros allowed as ParseUint allows them.</summary>
    public static bool TryParseNumber(ReadOnlySpan<char> text, uint maximum, out uint value)
    {
        value = 0;
        if (text.IsEmpty)
        {
            return false;
        }

        ulong total = 0;
        foreach (var c in text)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }

            total = (total * 10) + (uint)(c - '0');
            if (total > maximum)
            {
                return false;
            }
        }

        value = (uint)total;
        return true;
    }

    /// <summary>A key as 64 hex digits; all zeros is "none" (null), as for an unset private or preshared key.</summary>
    public static bool TryParseKey(ReadOnlySpan<char> text, out WireGuardKey? key)
    {
        key = null;
        Span<byte> bytes = stackalloc byte[WireGuardKey.Size];
        if (!TryDecodeKey(text, bytes))
        {
            return false;
        }

        key = bytes.ContainsAnyExcept((byte)0) ? WireGuardKey.FromBytes(bytes) : null;
        bytes.Clear();
        return true;
    }

    /// <summary>64 hex digits into <paramref name="destination"/> (32 bytes); false for anything else.</summary>
    public static bool TryDecodeKey(ReadOnlySpan<char> text, Span<byte> destination) =>
        text.Length == 2 * WireGuardKey.Size
        && Convert.FromHexString(text, destination, out _, out var written) == System.Buffers.OperationStatus.Done
        && written == WireGuardKey.Size;

    /// <summary><c>a.b.c.d:port</c> or <c>[IPv6]:port</c> (a zone allowed), port 1 to 65535: what netip.ParseAddrPort takes, less port 0.</summary>
    public static bool TryParseEndpoint(ReadOnlySpan<char> text, out DatagramAddress endpoint)
    {
        endpoint = default;
        var colon = text.LastIndexOf(':');
        if (colon <= 0 || !TryParseNumber(text[(colon + 1)..], ushort.MaxValue, out var port) || port == 0)
        {
            return false;
        }

        var host = text[..colon];
        IPAddress? address;
        if (host[0] == '[')
        {
            if (host.Length < 3 || host[^1] != ']' || !TryParseIPv6(host[1..^1], allowZone: true, out address))
            {
                return false;
            }
        }
        else if (!TryParseIPv4(host, out address))
        {
            return false;
        }

        endpoint = DatagramAddress.Create(address!, (int)port);
        return true;
    }

    /// <summary><c>address/length</c>, the length always written (no zone, no leading zero): what netip.ParsePrefix takes.</summary>
    public static bool TryParsePrefix(ReadOnlySpan<char> text, out IPPrefix prefix)
    {
        prefix = default;
        var slash = text.IndexOf('/');
        if (slash <= 0)
        {
            return false;
        }

        var lengthText = text[(slash + 1)..];
        var host = text[..slash];
        IPAddress? address;
        if (!(TryParseIPv4(host, out address) || TryParseIPv6(host, allowZone: false, out address)))
        {
            return false;
        }

        var maximum = address!.AddressFamily == AddressFamily.InterNetwork ? 32u : 128u;
        if ((lengthText.Length > 1 && lengthText[0] == '0') || !TryParseNumber(lengthText, maximum, out var length))
        {
            return false;
        }

        prefix = new IPPrefix(IPPrefix.Mask(address, (int)length), (int)length);
        return true;
    }

    /// <summary>Four decimal octets, 0 to 255, without leading zeros.</summary>
    public static bool TryParseIPv4(ReadOnlySpan<char> text, out IPAddress? address)
    {
        address = null;
        Span<byte> octets = stackalloc byte[4];
        var count = 0;
        foreach (var range in text.Split('.'))
        {
            var octet = text[range];
            if (count == 4 || octet.Length is 0 or > 3 || (octet.Length > 1 && octet[0] == '0')
                || !TryParseNumber(octet, byte.MaxValue, out var value))
            {
                return false;
            }

            octets[count++] = (byte)value;
        }

        if (count != 4)
        {
            return false;
        }

        address = new IPAddress(octets);
        return true;
    }

    /// <summary>
    /// An IPv6 address: groups of at most four hex digits, an embedded IPv4 tail only as a full dotted quad, and a
    /// zone (<c>%eth0</c>) only where <paramref name="allowZone"/>.
    /// </summary>
    private static bool TryParseIPv6(ReadOnlySpan<char> text, bool allowZone, out IPAddress? address)
    {
        address = null;
        var percent = text.IndexOf('%');
        var body = percent < 0 ? text : text[..percent];
        if (percent >= 0 && (!allowZone || percent == text.Length - 1 || text[(percent + 1)..].ContainsAnyExcept(ZoneCharacters)))
        {
            return false;
        }

        if (body.IndexOf(':') < 0)
        {
            return false;
        }

        var lastColon = body.LastIndexOf(':');
        var tail = body[(lastColon + 1)..];
        var groups = body;
        if (tail.Contains('.'))
        {
            if (!TryParseIPv4(tail, out _))
            {
                return false;
            }

            groups = body[..(lastColon + 1)];
        }

        foreach (var range in groups.Split(':'))
        {
            var group = groups[range];
            if (group.Length > 4 || group.ContainsAnyExcept(HexDigits))
            {
                return false;
            }
        }

        return IPAddress.TryParse(text, out address) && address.AddressFamily == AddressFamily.InterNetworkV6;
    }
}
