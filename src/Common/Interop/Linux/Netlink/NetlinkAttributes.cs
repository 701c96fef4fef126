using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

/// <summary>Reads and writes rtnetlink attributes (<c>struct rtattr</c> + value, padded to 4 bytes).</summary>
internal static class NetlinkAttributes
{
    public const int HeaderLength = 4;

    public static int Align(int length) => (length + 3) & ~3;

    /// <summary>The value of the first attribute of <paramref name="type"/> in <paramref name="attributes"/>; false if none or malformed.</summary>
    public static bool TryFind(ReadOnlySpan<byte> attributes, ushort type, out ReadOnlySpan<byte> value)
    {
        while (attributes.Length >= HeaderLength)
        {
            var header = MemoryMarshal.Read<RtAttr>(attributes);
            if (header.Length < HeaderLength || header.Length > attributes.Length)
            {
                break;
            }

            if ((header.Type & NetlinkConstants.NLA_TYPE_MASK) == type)
            {
                value = attributes[HeaderLength..header.Length];
                return true;
            }

            var next = Align(header.Length);
            attributes = next >= attributes.Length ? [] : attributes[next..];
        }

        value = default;
        return false;
    }

    /// <summary>Appends one attribute at <paramref name="offset"/>; returns the offset after it (padding included).</summary>
    public static int Write(Span<byte> buffer, int offset, ushort type, ReadOnlySpan<byte> value)
    {
        var header = new RtAttr { Length = (ushort)(HeaderLength + value.Length), Type = type };
        MemoryMarshal.Write(buffer[offset..], in header);
        value.CopyTo(buffer[(offset + HeaderLength)..]);
        var end = offset + Align(HeaderLength + value.Length);
        buffer[(offset + HeaderLength + value.Length)..end].Clear();
        return end;
    }
}
