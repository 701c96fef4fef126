using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace Salvo.Interop.Linux;

/// <summary>
/// Reads and writes ancillary data (cmsg) the way the CMSG_* macros do on 64-bit Linux: a 16-byte
/// cmsghdr, data at offset 16, each message padded to 8 bytes (CMSG_SPACE).
/// </summary>
internal static class ControlMessages
{
    public const int HeaderSize = 16;

    /// <summary>CMSG_SPACE(2) for UDP_SEGMENT: 24 bytes.</summary>
    public const int SegmentSpace = 24;

    /// <summary>Room for what a receive can carry: UDP_GRO (24) + IPV6_PKTINFO (40) + IPV6_TCLASS (24), rounded up.</summary>
    public const int ReceiveStride = 128;

    /// <summary>Room for what a send can carry: UDP_SEGMENT (24) + IPV6_PKTINFO (40) + IPV6_TCLASS (24), rounded up.</summary>
    public const int SendStride = 96;

    public static int Align(int length) => (length + 7) & ~7;

    public static int Space(int dataLength) => HeaderSize + Align(dataLength);

    /// <summary>Appends one control message at <paramref name="offset"/>; returns the offset after it.</summary>
    public static int Write(Span<byte> control, int offset, int level, int type, ReadOnlySpan<byte> data)
    {
        var message = control[offset..];
        BinaryPrimitives.WriteUInt64LittleEndian(message, (ulong)(HeaderSize + data.Length));
        BinaryPrimitives.WriteInt32LittleEndian(message[8..], level);
        BinaryPrimitives.WriteInt32LittleEndian(message[12..], type);
        data.CopyTo(message[HeaderSize..]);
        var space = Space(data.Length);
        message[(HeaderSize + data.Length)..space].Clear();
        return offset + space;
    }

    public static int WriteInt32(Span<byte> control, int offset, int level, int type, int value)
    {
        Span<byte> data = stackalloc byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(data, value);
        return Write(control, offset, level, type, data);
    }

    public static int WriteUInt16(Span<byte> control, int offset, int level, int type, ushort value)
    {
        Span<byte> data = stackalloc byte[2];
        BinaryPrimitives.WriteUInt16LittleEndian(data, value);
        return Write(control, offset, level, type, data);
    }

    /// <summary>Walks the control messages the kernel wrote into <paramref name="control"/>.</summary>
    public static Enumerator Enumerate(ReadOnlySpan<byte> control) => new(control);

    /// <summary>One control message: its level, type and data.</summary>
    public readonly ref struct Message(int level, int type, ReadOnlySpan<byte> data)
    {
        public int Level { get; } = level;

        public int Type { get; } = type;

        public ReadOnlySpan<byte> Data { get; } = data;
    }

    public ref struct Enumerator
    {
        private readonly ReadOnlySpan<byte> _control;
        private int _next;
        private Message _current;

        public Enumerator(ReadOnlySpan<byte> control)
        {
            _control = control;
            _next = 0;
            _current = default;
        }

        public readonly Message Current => _current;

        public readonly Enumerator GetEnumerator() => this;

        public bool MoveNext()
        {
            if (_next + HeaderSize > _control.Length)
            {
                return false;
            }

            var message = _control[_next..];
            var length = BinaryPrimitives.ReadUInt64LittleEndian(message);
            if (length < HeaderSize || length > (ulong)message.Length)
            {
                return false;
            }

            _current = new Message(
                BinaryPrimitives.ReadInt32LittleEndian(message[8..]),
                BinaryPrimitives.ReadInt32LittleEndian(message[12..]),
                message[HeaderSize..(int)length]);
            _next += Align((int)length);
            return true;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ReadInt32(ReadOnlySpan<byte> data) =>
        data.Length >= 4 ? BinaryPrimitives.ReadInt32LittleEndian(data) : data.Length == 1 ? data[0] : 0;
}
