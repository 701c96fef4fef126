using System.Buffers.Binary;
using System.Globalization;

namespace Salvo.Pal;

/// <summary>A 48-bit Ethernet address as a value: written into and read from frames without allocating.</summary>
internal readonly record struct MacAddress
{
    public const int Length = 6;

    private readonly ulong _value;

    private MacAddress(ulong value) => _value = value;

    public static MacAddress Read(ReadOnlySpan<byte> six)
    {
        if (six.Length < Length)
        {
            throw new ArgumentException($"An Ethernet address is 6 bytes (got {six.Length}).", nameof(six));
        }

        return new(((ulong)BinaryPrimitives.ReadUInt16BigEndian(six) << 32) | BinaryPrimitives.ReadUInt32BigEndian(six[2..]));
    }

    /// <summary>Parses <c>aa:bb:cc:dd:ee:ff</c> (as <c>ip link</c> prints it).</summary>
    public static MacAddress Parse(string text)
    {
        var parts = text.Split(':');
        if (parts.Length != Length)
        {
            throw new FormatException($"'{text}' is not an Ethernet address (six hexadecimal bytes separated by colons).");
        }

        Span<byte> bytes = stackalloc byte[Length];
        for (var i = 0; i < Length; i++)
        {
            bytes[i] = byte.Parse(parts[i], NumberStyles.HexNumber, CultureInfo.InvariantCulture);
        }

        return Read(bytes);
    }

    public void WriteTo(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt16BigEndian(destination, (ushort)(_value >> 32));
        BinaryPrimitives.WriteUInt32BigEndian(destination[2..], (uint)_value);
    }

    public override string ToString()
    {
        Span<byte> bytes = stackalloc byte[Length];
        WriteTo(bytes);
        return string.Create(CultureInfo.InvariantCulture, $"{bytes[0]:x2}:{bytes[1]:x2}:{bytes[2]:x2}:{bytes[3]:x2}:{bytes[4]:x2}:{bytes[5]:x2}");
    }
}
