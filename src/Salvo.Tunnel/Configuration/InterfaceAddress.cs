using System.Net;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Configuration;

/// <summary>
/// An address on the tunnel interface with the length of its subnet (wg-quick's Address, <c>198.19.0.1/24</c>): unlike
/// an <see cref="IPPrefix"/>, the host bits are the point and are kept.
/// </summary>
public readonly record struct InterfaceAddress(IPAddress Address, int PrefixLength)
{
    /// <summary>Parses <c>address/length</c>, or a bare address as /32 or /128.</summary>
    /// <exception cref="FormatException">Not an address, or a length outside 0..32 (IPv4) or 0..128 (IPv6).</exception>
    public static InterfaceAddress Parse(string text)
    {
        var (address, length) = IPPrefix.ParseUnmasked(text);
        return new InterfaceAddress(address, length);
    }

    /// <inheritdoc />
    public override string ToString() => $"{Address}/{PrefixLength}";
}
