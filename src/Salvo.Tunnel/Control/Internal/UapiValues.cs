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
        if (host[0] != '[')
        {
            // The common case (every endpoint of a large setconf, as a rule) without an address object.
            Span<byte> octets = stackalloc byte[4];
            if (!TryParseIPv4(host, octets))
            {
                return false;
            }

            endpoint = DatagramAddress.FromAddressBytes(octets, (int)port);
            return true;
        }

        if (host.Length < 3 || host[^1] != ']' || !TryParseIPv6(host[1..^1], allowZone: true, out var address))
        {
            return false;
        }

        endpoint = DatagramAddress.Create(address!, (int)port);
        return true;
    }

    /// <summary>
    /// <c>address/length</c>, the length always written (no zone, no leading zero): what netip.ParsePrefix takes. The
    /// address goes into <paramref name="address"/> (16 bytes of room) with its host bits cleared, without an object.
    /// </summary>
    /// <param name="text">The value.</param>
    /// <param name="address">Room for 16 bytes; the first <paramref name="size"/> are written.</param>
    /// <param name="size">4 or 16.</param>
    /// <param name="length">The prefix length.</param>
    public static bool TryParsePrefix(ReadOnlySpan<char> text, Span<byte> address, out int size, out int length)
    {
        size = 0;
        length = 0;
        var slash = text.IndexOf('/');
        if (slash <= 0)
        {
            return false;
        }

        var lengthText = text[(slash + 1)..];
        var host = text[..slash];
        if (TryParseIPv4(host, address))
        {
            size = 4;
        }
        else if (TryParseIPv6(host, address))
        {
            size = 16;
        }
        else
        {
            return false;
        }

        if ((lengthText.Length > 1 && lengthText[0] == '0') || !TryParseNumber(lengthText, (uint)size * 8, out var bits))
        {
            return false;
        }

        length = (int)bits;
        for (var bit = length; bit < size * 8; bit++)
        {
            address[bit / 8] &= (byte)~(0x80 >> (bit % 8));
        }

        return true;
    }

    /// <summary><c>address/length</c> as a prefix object; see the overload that writes bytes.</summary>
    public static bool TryParsePrefix(ReadOnlySpan<char> text, out IPPrefix prefix)
    {
        Span<byte> address = stackalloc byte[16];
        if (!TryParsePrefix(text, address, out var size, out var length))
        {
            prefix = default;
            return false;
        }

        prefix = new IPPrefix(new IPAddress(address[..size]), length);
        return true;
    }

    /// <summary>Four decimal octets, 0 to 255, without leading zeros.</summary>
    public static bool TryParseIPv4(ReadOnlySpan<char> text, out IPAddress? address)
    {
        Span<byte> octets = stackalloc byte[4];
        address = TryParseIPv4(text, octets) ? new IPAddress(octets) : null;
        return address is not null;
    }

    /// <summary>Four decimal octets, 0 to 255, without leading zeros, into the first 4 bytes of <paramref name="octets"/>.</summary>
    public static bool TryParseIPv4(ReadOnlySpan<char> text, Span<byte> octets)
    {
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

        return count == 4;
    }

    /// <summary>
    /// An IPv6 address without a zone into <paramref name="bytes"/> (16 bytes): groups of one to four hex digits, at
    /// most one <c>::</c> standing for at least one zero group (netip's rule), an IPv4 tail only as a full dotted quad.
    /// </summary>
    public static bool TryParseIPv6(ReadOnlySpan<char> text, Span<byte> bytes)
    {
        bytes[..16].Clear();
        var gap = text.IndexOf("::", StringComparison.Ordinal);
        if (gap < 0)
        {
            return TryParseGroups(text, bytes[..16], ipv4Tail: true, out var all) && all == 16;
        }

        var after = text[(gap + 2)..];
        if (after.Contains("::", StringComparison.Ordinal) || (!after.IsEmpty && after[0] == ':'))
        {
            return false;
        }

        Span<byte> tail = stackalloc byte[16];
        if (!TryParseGroups(text[..gap], bytes, ipv4Tail: false, out var headBytes) || !TryParseGroups(after, tail, ipv4Tail: true, out var tailBytes)
            || headBytes + tailBytes > 14)
        {
            return false;
        }

        tail[..tailBytes].CopyTo(bytes[(16 - tailBytes)..16]);
        return true;
    }

    /// <summary>Colon-separated groups (empty text is none), 2 bytes a group; the last may be a dotted quad where <paramref name="ipv4Tail"/>.</summary>
    private static bool TryParseGroups(ReadOnlySpan<char> text, Span<byte> bytes, bool ipv4Tail, out int written)
    {
        written = 0;
        if (text.IsEmpty)
        {
            return true;
        }

        foreach (var range in text.Split(':'))
        {
            var group = text[range];
            if (ipv4Tail && range.End.GetOffset(text.Length) == text.Length && group.Contains('.'))
            {
                if (written > 12 || !TryParseIPv4(group, bytes[written..]))
                {
                    return false;
                }

                written += 4;
                return true;
            }

            if (written > 14 || group.Length is 0 or > 4 || group.ContainsAnyExcept(HexDigits))
            {
                return false;
            }

            var value = 0;
            foreach (var c in group)
            {
                value = (value << 4) | (char.IsAsciiDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
            }

            bytes[written++] = (byte)(value >> 8);
            bytes[written++] = (byte)value;
        }

        return true;
    }

    /// <summary>
    /// An IPv6 address as <see cref="TryParseIPv6(ReadOnlySpan{char}, Span{byte})"/> reads it, with a zone
    /// (<c>%eth0</c>) only where <paramref name="allowZone"/>.
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

        Span<byte> bytes = stackalloc byte[16];
        return TryParseIPv6(body, bytes) && IPAddress.TryParse(text, out address) && address.AddressFamily == AddressFamily.InterNetworkV6;
    }
}
