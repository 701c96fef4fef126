using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Salvo.Pal;

/// <summary>
/// Which UDP datagrams the XDP program redirects: the destination port, and the destination address when the socket
/// is bound to one. An IPv4 address (or an IPv4-mapped IPv6 one) matches IPv4 only, an IPv6 address IPv6 only;
/// <see cref="IPAddress.Any"/> matches every IPv4 destination; <see cref="IPAddress.IPv6Any"/> or no address matches
/// both families, as a dual-mode socket receives both.
/// </summary>
internal readonly record struct XdpUdpMatch
{
    private readonly int[]? _ipv6Words;

    public XdpUdpMatch(int port, IPAddress? address = null)
    {
        if (port is <= 0 or > ushort.MaxValue)
        {
            throw new ArgumentOutOfRangeException(nameof(port), port, "The UDP port the XDP program matches must be 1 to 65535.");
        }

        Port = port;
        if (address is null || address.Equals(IPAddress.IPv6Any))
        {
            IPv4 = IPv6 = true;
            return;
        }

        if (address.IsIPv4MappedToIPv6)
        {
            address = address.MapToIPv4();
        }

        Span<byte> bytes = stackalloc byte[16];
        address.TryWriteBytes(bytes, out _);
        if (address.AddressFamily == AddressFamily.InterNetwork)
        {
            IPv4 = true;
            IPv4Address = address.Equals(IPAddress.Any) ? null : BinaryPrimitives.ReadInt32LittleEndian(bytes);
            return;
        }

        IPv6 = true;
        _ipv6Words = new int[4];
        for (var word = 0; word < 4; word++)
        {
            _ipv6Words[word] = BinaryPrimitives.ReadInt32LittleEndian(bytes[(4 * word)..]);
        }
    }

    public int Port { get; }

    public bool IPv4 { get; }

    public bool IPv6 { get; }

    /// <summary>The IPv4 destination as the program loads it (little-endian from network order), or null for any.</summary>
    public int? IPv4Address { get; }

    /// <summary>The IPv6 destination as four little-endian words, or null for any.</summary>
    public IReadOnlyList<int>? IPv6Address => _ipv6Words;
}
