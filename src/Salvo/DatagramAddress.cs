using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using Salvo.Pal;

namespace Salvo;

/// <summary>
/// An IPv4 or IPv6 address and port held inline in a value: no object per datagram.
/// Converting to <see cref="IPEndPoint"/> or <see cref="IPAddress"/> is the only operation that allocates.
/// </summary>
/// <remarks>
/// <c>default(DatagramAddress)</c> is <see cref="None"/>: no address (for example "the connected peer"
/// when used as a send destination). An IPv4 address received on a dual-stack IPv6 socket arrives as an
/// IPv4-mapped IPv6 address, exactly as the kernel reports it; <see cref="Unmap"/> turns it back.
/// </remarks>
[StructLayout(LayoutKind.Auto)]
public readonly struct DatagramAddress : IEquatable<DatagramAddress>
{
    private const byte KindNone = 0;
    private const byte KindIPv4 = 4;
    private const byte KindIPv6 = 6;

    // The 16 address bytes in network order (IPv4 uses the first 4), as two words for cheap equality.
    private readonly ulong _high;
    private readonly ulong _low;
    private readonly uint _scopeId;
    private readonly ushort _port;
    private readonly byte _kind;

    private DatagramAddress(ulong high, ulong low, uint scopeId, ushort port, byte kind)
    {
        _high = high;
        _low = low;
        _scopeId = scopeId;
        _port = port;
        _kind = kind;
    }

    /// <summary>No address: the value of <c>default(DatagramAddress)</c>.</summary>
    public static DatagramAddress None => default;

    /// <summary>The address family: <see cref="AddressFamily.InterNetwork"/>, <see cref="AddressFamily.InterNetworkV6"/>, or <see cref="AddressFamily.Unspecified"/> for <see cref="None"/>.</summary>
    public AddressFamily Family => _kind switch
    {
        KindIPv4 => AddressFamily.InterNetwork,
        KindIPv6 => AddressFamily.InterNetworkV6,
        _ => AddressFamily.Unspecified,
    };

    /// <summary>Whether this value holds an address (it is not <see cref="None"/>).</summary>
    public bool HasValue => _kind != KindNone;

    /// <summary>The port, 0 to 65535.</summary>
    public int Port => _port;

    /// <summary>The IPv6 scope (interface index) of a link-local address; 0 otherwise.</summary>
    public long ScopeId => _scopeId;

    /// <summary>Whether this is an IPv4-mapped IPv6 address (::ffff:a.b.c.d).</summary>
    public bool IsIPv4MappedToIPv6 => _kind == KindIPv6 && _high == 0 && (_low >> 32) == 0xFFFF;

    /// <summary>Creates an address from an <see cref="IPAddress"/> and a port.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="address"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="port"/> is outside 0..65535.</exception>
    /// <exception cref="ArgumentException"><paramref name="address"/> is neither IPv4 nor IPv6.</exception>
    public static DatagramAddress Create(IPAddress address, int port)
    {
        ArgumentNullException.ThrowIfNull(address);
        ArgumentOutOfRangeException.ThrowIfNegative(port);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(port, IPEndPoint.MaxPort);
        Span<byte> bytes = stackalloc byte[16];
        bytes.Clear();
        if (address.AddressFamily == AddressFamily.InterNetwork)
        {
            address.TryWriteBytes(bytes, out _);
            return FromBytes(bytes, 0, (ushort)port, KindIPv4);
        }

        if (address.AddressFamily == AddressFamily.InterNetworkV6)
        {
            address.TryWriteBytes(bytes, out _);
            return FromBytes(bytes, (uint)address.ScopeId, (ushort)port, KindIPv6);
        }

        throw new ArgumentException($"Address family {address.AddressFamily} is not IPv4 or IPv6.", nameof(address));
    }

    /// <summary>Creates an address from its network-order bytes, 4 for IPv4 or 16 for IPv6, and a port, without an object.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="port"/> is outside 0..65535.</exception>
    /// <exception cref="ArgumentException"><paramref name="address"/> is neither 4 nor 16 bytes.</exception>
    public static DatagramAddress FromAddressBytes(ReadOnlySpan<byte> address, int port)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(port);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(port, IPEndPoint.MaxPort);
        return address.Length switch
        {
            4 => FromIPv4Bytes(address, port),
            16 => FromIPv6Bytes(address, port),
            _ => throw new ArgumentException($"An address is 4 or 16 bytes, not {address.Length}.", nameof(address)),
        };
    }

    /// <summary>Creates an address from an <see cref="IPEndPoint"/>.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="endPoint"/> is null.</exception>
    public static DatagramAddress FromIPEndPoint(IPEndPoint endPoint)
    {
        ArgumentNullException.ThrowIfNull(endPoint);
        return Create(endPoint.Address, endPoint.Port);
    }

    /// <summary>Reads an address out of a <see cref="SocketAddress"/> without allocating.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="socketAddress"/> is null.</exception>
    /// <exception cref="ArgumentException">The family is not IPv4 or IPv6, or the buffer is too short.</exception>
    public static DatagramAddress FromSocketAddress(SocketAddress socketAddress)
    {
        ArgumentNullException.ThrowIfNull(socketAddress);
        // SocketAddress.Buffer holds the platform's sockaddr; port and address sit at the same offsets on
        // Linux, Windows and BSD (only the first two bytes, family or length+family, differ).
        var family = socketAddress.Family;
        var span = socketAddress.Buffer.Span[..socketAddress.Size];
        if (family == AddressFamily.InterNetwork && span.Length >= SockaddrCodec.IPv4MinimumLength)
        {
            return SockaddrCodec.ReadIPv4(span);
        }

        if (family == AddressFamily.InterNetworkV6 && span.Length >= SockaddrCodec.IPv6Length)
        {
            return SockaddrCodec.ReadIPv6(span);
        }

        throw new ArgumentException($"SocketAddress of family {family} and size {span.Length} is not an IPv4 or IPv6 address.", nameof(socketAddress));
    }

    /// <summary>Writes this address into <paramref name="socketAddress"/> (its family must match) without allocating.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="socketAddress"/> is null.</exception>
    /// <exception cref="ArgumentException">The families differ or this is <see cref="None"/>.</exception>
    public void WriteTo(SocketAddress socketAddress)
    {
        ArgumentNullException.ThrowIfNull(socketAddress);
        if (!HasValue || socketAddress.Family != Family)
        {
            throw new ArgumentException($"Cannot write a {Family} address into a {socketAddress.Family} SocketAddress.", nameof(socketAddress));
        }

        var span = socketAddress.Buffer.Span;
        if (_kind == KindIPv4)
        {
            socketAddress.Size = SockaddrCodec.IPv4Length;
            span[2..SockaddrCodec.IPv4Length].Clear();
            SockaddrCodec.WriteIPv4Body(this, span);
        }
        else
        {
            socketAddress.Size = SockaddrCodec.IPv6Length;
            span[2..SockaddrCodec.IPv6Length].Clear();
            SockaddrCodec.WriteIPv6Body(this, span);
        }
    }

    /// <summary>Creates a new <see cref="SocketAddress"/> holding this address (allocates).</summary>
    public SocketAddress ToSocketAddress()
    {
        var result = new SocketAddress(Family, _kind == KindIPv4 ? 16 : 28);
        WriteTo(result);
        return result;
    }

    /// <summary>Creates a new <see cref="IPEndPoint"/> (allocates).</summary>
    /// <exception cref="InvalidOperationException">This is <see cref="None"/>.</exception>
    public IPEndPoint ToIPEndPoint()
    {
        return new IPEndPoint(ToIPAddress(), _port);
    }

    /// <summary>Creates a new <see cref="IPAddress"/> (allocates).</summary>
    /// <exception cref="InvalidOperationException">This is <see cref="None"/>.</exception>
    public IPAddress ToIPAddress()
    {
        Span<byte> bytes = stackalloc byte[16];
        WriteAddressBytes(bytes);
        return _kind switch
        {
            KindIPv4 => new IPAddress(bytes[..4]),
            KindIPv6 => new IPAddress(bytes, _scopeId),
            _ => throw new InvalidOperationException("DatagramAddress.None has no IP address."),
        };
    }

    /// <summary>The IPv4-mapped IPv6 form of an IPv4 address (for a dual-stack socket); others unchanged.</summary>
    public DatagramAddress MapToIPv6()
    {
        if (_kind != KindIPv4)
        {
            return this;
        }

        Span<byte> bytes = stackalloc byte[16];
        bytes.Clear();
        bytes[10] = 0xFF;
        bytes[11] = 0xFF;
        WriteAddressBytes(bytes[12..]);
        return FromBytes(bytes, 0, _port, KindIPv6);
    }

    /// <summary>The IPv4 form of an IPv4-mapped IPv6 address; others unchanged.</summary>
    public DatagramAddress Unmap()
    {
        if (!IsIPv4MappedToIPv6)
        {
            return this;
        }

        Span<byte> bytes = stackalloc byte[16];
        WriteAddressBytes(bytes);
        Span<byte> v4 = stackalloc byte[16];
        v4.Clear();
        bytes[12..16].CopyTo(v4);
        return FromBytes(v4, 0, _port, KindIPv4);
    }

    /// <summary>The same address with another port.</summary>
    public DatagramAddress WithPort(int port)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(port);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(port, IPEndPoint.MaxPort);
        return new DatagramAddress(_high, _low, _scopeId, (ushort)port, _kind);
    }

    /// <summary>Copies the address bytes in network order: 4 for IPv4, 16 for IPv6.</summary>
    /// <returns>The number of bytes written.</returns>
    public int WriteAddressBytes(Span<byte> destination)
    {
        Span<byte> all = stackalloc byte[16];
        BinaryPrimitives.WriteUInt64BigEndian(all, _high);
        BinaryPrimitives.WriteUInt64BigEndian(all[8..], _low);
        var length = _kind == KindIPv4 ? 4 : 16;
        all[..length].CopyTo(destination);
        return length;
    }

    /// <summary>An IPv4 address from its 4 network-order bytes.</summary>
    internal static DatagramAddress FromIPv4Bytes(ReadOnlySpan<byte> four, int port)
    {
        Span<byte> bytes = stackalloc byte[16];
        bytes.Clear();
        four.CopyTo(bytes);
        return FromBytes(bytes, 0, (ushort)port, KindIPv4);
    }

    /// <summary>An IPv6 address from its 16 network-order bytes.</summary>
    internal static DatagramAddress FromIPv6Bytes(ReadOnlySpan<byte> sixteen, int port, uint scopeId = 0) =>
        FromBytes(sixteen, scopeId, (ushort)port, KindIPv6);

    /// <inheritdoc />
    public bool Equals(DatagramAddress other) =>
        _high == other._high && _low == other._low && _port == other._port && _kind == other._kind && _scopeId == other._scopeId;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is DatagramAddress other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(_high, _low, _port, _kind, _scopeId);

    /// <summary>Equality of family, address, scope and port.</summary>
    public static bool operator ==(DatagramAddress left, DatagramAddress right) => left.Equals(right);

    /// <summary>Inequality of family, address, scope or port.</summary>
    public static bool operator !=(DatagramAddress left, DatagramAddress right) => !left.Equals(right);

    /// <summary>"a.b.c.d:port", "[v6]:port", or "(none)" (allocates).</summary>
    public override string ToString() => HasValue ? ToIPEndPoint().ToString() : "(none)";

    private static DatagramAddress FromBytes(ReadOnlySpan<byte> sixteen, uint scopeId, ushort port, byte kind) =>
        new(BinaryPrimitives.ReadUInt64BigEndian(sixteen), BinaryPrimitives.ReadUInt64BigEndian(sixteen[8..]), scopeId, port, kind);
}
