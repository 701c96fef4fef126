using Salvo.Perf.Protocol;

namespace Salvo.Perf.Rr;

/// <summary>What one datagram received by an rr connection turned out to be.</summary>
internal enum RrResponseKind
{
    /// <summary>The answer to a request this connection sent.</summary>
    Answer,

    /// <summary>Not a response of the protocol.</summary>
    Malformed,

    /// <summary>A valid response to no request this connection still knows (given up on, or a duplicate).</summary>
    Unknown,
}

/// <summary>
/// How an rr connection writes requests and recognises their answers on the wire: Salvo's own header, or
/// another tool's protocol. One instance per connection; in fixed-rate mode one thread writes requests
/// while another reads responses.
/// </summary>
internal interface IRrCodec
{
    /// <summary>Bytes per request.</summary>
    int RequestBytes { get; }

    /// <summary>Fills the header of <paramref name="request"/> (<see cref="RequestBytes"/> long).</summary>
    /// <param name="request">The request to send.</param>
    /// <param name="slot">The closed loop's in-flight slot (0 at a fixed rate).</param>
    /// <param name="sequence">The connection's request number, from 0.</param>
    /// <param name="timeNanoseconds">The (intended) send time on the monotonic clock.</param>
    void WriteRequest(Span<byte> request, ushort slot, ulong sequence, long timeNanoseconds);

    /// <summary>
    /// Reads a response; on <see cref="RrResponseKind.Answer"/>, <paramref name="answered"/> holds the
    /// slot, sequence and send time of the request it answers.
    /// </summary>
    RrResponseKind ReadResponse(ReadOnlySpan<byte> response, out PayloadHeader answered);
}
