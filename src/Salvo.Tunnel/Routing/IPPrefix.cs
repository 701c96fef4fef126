using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Tunnel.Routing;

/// <summary>An address range in CIDR form (<c>198.19.0.0/24</c>, <c>fd00::/64</c>); host bits are cleared.</summary>
public readonly record struct IPPrefix(IPAddress Address, int Length)
{
    /// <summary>Parses <c>address/length</c>, or a bare address as a host route (/32 or /128).</summary>
    /// <exception cref="FormatException">Not an address, or a length outside 0..32 (IPv4) or 0..128 (IPv6).</exception>
    public static IPPrefix Parse(string text)
    {
        var (address, length) = ParseUnmasked(text);
        return new IPPrefix(Mask(address, length), length);
    }

    /// <summary>The address and length as written, host bits kept (an interface address such as 198.19.0.1/24).</summary>
    internal static (IPAddress Address, int Length) ParseUnmasked(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var slash = text.IndexOf('/', StringComparison.Ordinal);
        var addressText = slash < 0 ? text.Trim() : text[..slash].Trim();
        if (!TryParseAddress(addressText, out var address))
        {
            throw new FormatException($"{Configuration.ShownValue.Of(text)} is not an IP address or CIDR range.");
        }

        var maximum = address.AddressFamily == AddressFamily.InterNetwork ? 32 : 128;
        var length = maximum;
        if (slash >= 0 && (!int.TryParse(text.AsSpan(slash + 1).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out length) || length > maximum))
        {
            throw new FormatException($"{Configuration.ShownValue.Of(text)}: the prefix length must be 0..{maximum}.");
        }

        return (address, length);
    }

    /// <summary>
    /// An address in the forms inet_pton(3) takes, as wg(8) reads AllowedIPs (and wireguard-go's netip): four decimal
    /// parts without leading zeros for IPv4, and IPv6 without a zone. .NET's own parser also takes inet_aton's forms
    /// ("10.1" is 10.0.0.1, "167772161" and "0x0a.0.0.1" are 10.0.0.1) and "fe80::1%eth0", which wg refuses and
    /// iproute2 reads differently ("10.1" is 10.1.0.0 to ip(8)): a file that means one thing to wg-quick must not
    /// mean another here.
    /// </summary>
    internal static bool TryParseAddress(ReadOnlySpan<char> text, [NotNullWhen(true)] out IPAddress? address)
    {
        address = null;
        if (text.Contains(':'))
        {
            return !text.Contains('%') && !text.Contains('[') && IPAddress.TryParse(text, out address) && address.AddressFamily == AddressFamily.InterNetworkV6;
        }

        var parts = 0;
        foreach (var range in text.Split('.'))
        {
            var part = text[range];
            if (++parts > 4 || part.Length is 0 or > 3 || (part.Length > 1 && part[0] == '0')
                || !int.TryParse(part, NumberStyles.None, CultureInfo.InvariantCulture, out var value) || value > 255)
            {
                return false;
            }
        }

        return parts == 4 && IPAddress.TryParse(text, out address);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Address}/{Length}";

    /// <summary>The address with the bits past <paramref name="length"/> cleared; the same object when none was set.</summary>
    /// <remarks>
    /// A /32 or /128 (most AllowedIPs) has no host bits: returning the address as it is saves two allocations a prefix,
    /// which a million-peer <c>wg setconf</c> made twice a prefix (parsing, then routing).
    /// </remarks>
    internal static IPAddress Mask(IPAddress address, int length)
    {
        Span<byte> bytes = stackalloc byte[16];
        address.TryWriteBytes(bytes, out var size);
        bytes = bytes[..size];
        var changed = size == 16 && address.ScopeId != 0;
        for (var bit = length; bit < size * 8; bit++)
        {
            var mask = (byte)(0x80 >> (bit % 8));
            if ((bytes[bit / 8] & mask) != 0)
            {
                bytes[bit / 8] &= (byte)~mask;
                changed = true;
            }
        }

        return changed ? new IPAddress(bytes) : address;
    }
}
