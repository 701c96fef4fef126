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
        if (!IPAddress.TryParse(addressText, out var address))
        {
            throw new FormatException($"{Configuration.ShownValue.Of(text)} is not an IP address or CIDR range.");
        }

        var maximum = address.AddressFamily == AddressFamily.InterNetwork ? 32 : 128;
        var length = maximum;
        if (slash >= 0 && (!int.TryParse(text.AsSpan(slash + 1).Trim(), out length) || length < 0 || length > maximum))
        {
            throw new FormatException($"{Configuration.ShownValue.Of(text)}: the prefix length must be 0..{maximum}.");
        }

        return (address, length);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Address}/{Length}";

    internal static IPAddress Mask(IPAddress address, int length)
    {
        var bytes = address.GetAddressBytes();
        for (var bit = length; bit < bytes.Length * 8; bit++)
        {
            bytes[bit / 8] &= (byte)~(0x80 >> (bit % 8));
        }

        return new IPAddress(bytes);
    }
}
