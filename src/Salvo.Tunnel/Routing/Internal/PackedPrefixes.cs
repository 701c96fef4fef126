using System.Buffers.Binary;
using System.Net;

namespace Salvo.Tunnel.Routing;

/// <summary>
/// One peer's prefixes packed into one array: a 4-byte count of the bytes in use, then per prefix its address size
/// (4 or 16), its length and its address. Two prefixes (a /32 and a /128) take a 48-byte array, where a list of
/// <see cref="IPPrefix"/> with their <see cref="IPAddress"/> objects took about 250 bytes: at a million peers, 200 MB.
/// Grows by doubling, so a peer given many prefixes one at a time copies each byte a bounded number of times.
/// </summary>
internal static class PackedPrefixes
{
    private const int HeaderSize = 4;

    /// <summary>Adds <paramref name="prefix"/> (canonical, not already there) and returns the array to keep.</summary>
    public static byte[] Append(byte[]? packed, IPPrefix prefix)
    {
        Span<byte> address = stackalloc byte[16];
        prefix.Address.TryWriteBytes(address, out var size);
        return Append(packed, address[..size], prefix.Length);
    }

    /// <summary>Adds the prefix of <paramref name="address"/> (4 or 16 bytes, host bits clear) and <paramref name="length"/>; returns the array to keep.</summary>
    public static byte[] Append(byte[]? packed, ReadOnlySpan<byte> address, int length)
    {
        var size = address.Length;
        var used = packed is null ? 0 : Used(packed);
        var needed = HeaderSize + used + 2 + size;
        if (packed is null || packed.Length < needed)
        {
            var grown = new byte[packed is null ? needed : Math.Max(needed, packed.Length * 2)];
            packed?.AsSpan(0, HeaderSize + used).CopyTo(grown);
            packed = grown;
        }

        var entry = packed.AsSpan(HeaderSize + used);
        entry[0] = (byte)size;
        entry[1] = (byte)length;
        address.CopyTo(entry[2..]);
        BinaryPrimitives.WriteInt32LittleEndian(packed, used + 2 + size);
        return packed;
    }

    /// <summary>Takes <paramref name="prefix"/> out; false when it was not there. The array keeps its size.</summary>
    public static bool Remove(byte[] packed, IPPrefix prefix)
    {
        Span<byte> address = stackalloc byte[16];
        prefix.Address.TryWriteBytes(address, out var size);
        return Remove(packed, address[..size], prefix.Length);
    }

    /// <summary>Takes the prefix of <paramref name="address"/> and <paramref name="length"/> out; false when it was not there.</summary>
    public static bool Remove(byte[] packed, ReadOnlySpan<byte> address, int length)
    {
        var size = address.Length;
        var used = Used(packed);
        var entries = packed.AsSpan(HeaderSize, used);
        for (var at = 0; at < used; at += 2 + entries[at])
        {
            var entrySize = entries[at];
            if (entrySize == size && entries[at + 1] == length && entries.Slice(at + 2, size).SequenceEqual(address))
            {
                entries[(at + 2 + size)..].CopyTo(entries[at..]);
                BinaryPrimitives.WriteInt32LittleEndian(packed, used - 2 - size);
                return true;
            }
        }

        return false;
    }

    /// <summary>How many prefixes the array holds.</summary>
    public static int Count(byte[]? packed)
    {
        var count = 0;
        foreach (var _ in Enumerate(packed))
        {
            count++;
        }

        return count;
    }

    /// <summary>The bytes the array's entries take, for <see cref="Reserve"/>.</summary>
    public static int UsedBytes(byte[]? packed) => packed is null ? 0 : Used(packed);

    /// <summary>Whether no prefix is left.</summary>
    public static bool IsEmpty(byte[] packed) => Used(packed) == 0;

    /// <summary>The prefixes, in the order they were added.</summary>
    public static IPPrefix[] Unpack(byte[]? packed)
    {
        if (packed is null)
        {
            return [];
        }

        var used = Used(packed);
        var entries = packed.AsSpan(HeaderSize, used);
        var count = 0;
        for (var at = 0; at < used; at += 2 + entries[at])
        {
            count++;
        }

        var prefixes = new IPPrefix[count];
        var i = 0;
        for (var at = 0; at < used; at += 2 + entries[at])
        {
            prefixes[i++] = new IPPrefix(new IPAddress(entries.Slice(at + 2, entries[at])), entries[at + 1]);
        }

        return prefixes;
    }

    /// <summary>Makes room for <paramref name="bytes"/> more bytes of entries, so the appends after it copy nothing.</summary>
    public static byte[] Reserve(byte[]? packed, int bytes)
    {
        var used = packed is null ? 0 : Used(packed);
        if (packed is not null && packed.Length >= HeaderSize + used + bytes)
        {
            return packed;
        }

        var grown = new byte[HeaderSize + used + bytes];
        packed?.AsSpan(0, HeaderSize + used).CopyTo(grown);
        return grown;
    }

    /// <summary>The room one prefix takes: its address size and length bytes, then the address.</summary>
    public static int EntrySize(IPPrefix prefix) => 2 + (prefix.Address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork ? 4 : 16);

    /// <summary>The prefixes as spans of the array, in the order they were added: nothing allocated.</summary>
    public static Enumerator Enumerate(byte[]? packed) => new(packed);

    private static int Used(byte[] packed) => BinaryPrimitives.ReadInt32LittleEndian(packed);

    /// <summary>One prefix inside the packed array: valid while the array is not changed.</summary>
    public readonly ref struct Entry(ReadOnlySpan<byte> address, int length)
    {
        /// <summary>4 or 16 bytes, host bits cleared.</summary>
        public ReadOnlySpan<byte> Address { get; } = address;

        public int Length { get; } = length;
    }

    /// <summary>Walks the entries of a packed array.</summary>
    public ref struct Enumerator
    {
        private readonly ReadOnlySpan<byte> _entries;
        private int _next;
        private int _at;

        public Enumerator(byte[]? packed)
        {
            _entries = packed is null ? default : packed.AsSpan(HeaderSize, Used(packed));
            _at = -1;
        }

        public readonly Entry Current => new(_entries.Slice(_at + 2, _entries[_at]), _entries[_at + 1]);

        public readonly Enumerator GetEnumerator() => this;

        public bool MoveNext()
        {
            if (_next >= _entries.Length)
            {
                return false;
            }

            _at = _next;
            _next += 2 + _entries[_at];
            return true;
        }
    }
}
