using Salvo.Perf.Protocol;

namespace Salvo.Perf.Rr;

/// <summary>
/// Salvo's rr protocol (<see cref="RrWire"/>): the request carries its slot, sequence, send time and the
/// response length it wants; the response echoes that header, so the connection keeps no table.
/// </summary>
internal sealed class SalvoRrCodec(int requestBytes, int responseBytes) : IRrCodec
{
    public int RequestBytes => requestBytes;

    public void WriteRequest(Span<byte> request, ushort slot, ulong sequence, long timeNanoseconds) =>
        RrWire.WriteRequest(request, slot, sequence, timeNanoseconds, responseBytes);

    public RrResponseKind ReadResponse(ReadOnlySpan<byte> response, out PayloadHeader answered) =>
        PayloadHeader.TryRead(response, out answered) == HeaderError.None && answered.Kind == PayloadKind.Response
            ? RrResponseKind.Answer
            : RrResponseKind.Malformed;
}
