using System.Buffers.Binary;

namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// iperf3's UDP datagrams. The data header, big-endian, at the start of every datagram (the rest is
/// filler), as captured from iperf3 3.12:
/// <code>
///  0  4  seconds        of the sender's wall clock at sending
///  4  4  microseconds
///  8  4  packet counter, from 1 per stream   (8 bytes when both sides agreed on udp_counters_64bit)
/// </code>
/// Stream set-up: the client sends a 4-byte connect datagram to the server's port and waits for a
/// 4-byte reply from that port. iperf3 writes the numbers 0x36373839 and 0x39383736 in host order, so a
/// little-endian client sends "9876" and the server answers "6789"; either order is accepted here.
/// </summary>
internal static class Iperf3Datagram
{
    /// <summary>The connect message, as a little-endian host writes it ("9876").</summary>
    public static ReadOnlySpan<byte> ConnectMessage => "9876"u8;

    /// <summary>The reply to a connect message, as a little-endian host writes it ("6789").</summary>
    public static ReadOnlySpan<byte> ConnectReply => "6789"u8;

    /// <summary>Header bytes with 32-bit counters (iperf3's default).</summary>
    public const int HeaderSize32 = 12;

    /// <summary>Header bytes with 64-bit counters.</summary>
    public const int HeaderSize64 = 16;

    /// <summary>The header size for the counter width.</summary>
    public static int HeaderSize(bool counters64) => counters64 ? HeaderSize64 : HeaderSize32;

    /// <summary>Whether a datagram is a connect message (either byte order).</summary>
    public static bool IsConnectMessage(ReadOnlySpan<byte> datagram) =>
        datagram.SequenceEqual(ConnectMessage) || datagram.SequenceEqual(ConnectReply);

    /// <summary>Whether a datagram is the reply to a connect message (either byte order).</summary>
    public static bool IsConnectReply(ReadOnlySpan<byte> datagram) => IsConnectMessage(datagram);

    /// <summary>Writes a data header for the packet <paramref name="counter"/> sent at <paramref name="unixMicroseconds"/>.</summary>
    /// <exception cref="ArgumentException"><paramref name="destination"/> is shorter than the header.</exception>
    public static void WriteHeader(Span<byte> destination, long unixMicroseconds, ulong counter, bool counters64)
    {
        if (destination.Length < HeaderSize(counters64))
        {
            throw new ArgumentException($"An iperf3 datagram needs at least {HeaderSize(counters64)} bytes for its header.", nameof(destination));
        }

        BinaryPrimitives.WriteUInt32BigEndian(destination, (uint)(unixMicroseconds / 1_000_000));
        BinaryPrimitives.WriteUInt32BigEndian(destination[4..], (uint)(unixMicroseconds % 1_000_000));
        if (counters64)
        {
            BinaryPrimitives.WriteUInt64BigEndian(destination[8..], counter);
        }
        else
        {
            BinaryPrimitives.WriteUInt32BigEndian(destination[8..], (uint)counter);
        }
    }

    /// <summary>Reads a data header; false when the datagram is shorter than the header or the counter is 0.</summary>
    public static bool TryReadHeader(ReadOnlySpan<byte> datagram, bool counters64, out long sentUnixMicroseconds, out ulong counter)
    {
        sentUnixMicroseconds = 0;
        counter = 0;
        if (datagram.Length < HeaderSize(counters64))
        {
            return false;
        }

        sentUnixMicroseconds = (BinaryPrimitives.ReadUInt32BigEndian(datagram) * 1_000_000L) + BinaryPrimitives.ReadUInt32BigEndian(datagram[4..]);
        counter = counters64 ? BinaryPrimitives.ReadUInt64BigEndian(datagram[8..]) : BinaryPrimitives.ReadUInt32BigEndian(datagram[8..]);
        return counter != 0;
    }

    /// <summary>The stream id iperf3 gives the stream created <paramref name="index"/>-th (from 0): 1, 3, 4, 5, ... (iperf_add_stream counts from 2 past the list).</summary>
    public static int StreamId(int index) => index == 0 ? 1 : index + 2;
}
