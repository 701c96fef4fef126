using System.Buffers.Binary;
using Salvo.Perf.Protocol;

namespace Salvo.Perf.Rr;

/// <summary>
/// Requests and responses of the rr test. A request is a <see cref="PayloadHeader"/> of kind Request,
/// then the response length it asks for (uint32, big-endian, at offset 24), then filler. The response
/// echoes the request's header with kind Response, padded to the asked length.
/// </summary>
internal static class RrWire
{
    /// <summary>The smallest request: header plus the response length.</summary>
    public const int MinRequest = PayloadHeader.Size + 4;

    /// <summary>The smallest response: the header.</summary>
    public const int MinResponse = PayloadHeader.Size;

    /// <summary>Writes a request header into <paramref name="request"/> (at least <see cref="MinRequest"/> bytes).</summary>
    public static void WriteRequest(Span<byte> request, ushort slot, ulong sequence, long timeNanoseconds, int responseLength)
    {
        new PayloadHeader(PayloadKind.Request, slot, sequence, timeNanoseconds).Write(request);
        BinaryPrimitives.WriteInt32BigEndian(request[PayloadHeader.Size..], responseLength);
    }

    /// <summary>
    /// Reads a request; returns the response length it asks for (clamped to 24..65,507), or -1 when the
    /// datagram is not a valid request.
    /// </summary>
    public static int TryReadRequest(ReadOnlySpan<byte> datagram, out PayloadHeader header)
    {
        if (PayloadHeader.TryRead(datagram, out header) != HeaderError.None || header.Kind != PayloadKind.Request || datagram.Length < MinRequest)
        {
            return -1;
        }

        return Math.Clamp(BinaryPrimitives.ReadInt32BigEndian(datagram[PayloadHeader.Size..]), MinResponse, Cli.ValueParsers.MaxUdpPayload);
    }

    /// <summary>
    /// Appends the response to <paramref name="request"/> to <paramref name="replies"/>; false when the batch is full.
    /// A response larger than its request goes only to a loopback source: anywhere else a spoofed 28-byte request
    /// could aim 65,507 bytes (2,340 times as much) at a victim, so the response is cut to the request's length.
    /// </summary>
    public static bool TryAnswer(ReadOnlySpan<byte> request, DatagramAddress source, SendBatch replies, out bool malformed)
    {
        var length = TryReadRequest(request, out var header);
        malformed = length < 0;
        if (malformed)
        {
            return true;
        }

        if (length > request.Length && !IsLoopback(source))
        {
            length = Math.Max(MinResponse, request.Length);
        }

        if (!replies.TryAdd(length, source, out var response))
        {
            return false;
        }

        (header with { Kind = PayloadKind.Response }).Write(response);
        return true;
    }

    private static bool IsLoopback(DatagramAddress source)
    {
        var address = source.Unmap();
        Span<byte> bytes = stackalloc byte[16];
        var length = address.WriteAddressBytes(bytes);
        return length == 4 ? bytes[0] == 127 : bytes[..15].IndexOfAnyExcept((byte)0) < 0 && bytes[15] == 1;
    }
}
