using System.Numerics;
using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;

namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// The client side of sockperf's ping-pong over UDP, for <c>salvo rr --protocol sockperf</c>: each request
/// is a sockperf message with the client and pong-request flags, numbered from 1 as sockperf's client
/// numbers them; the server sends the same bytes back with the client flag cleared. The header holds only
/// the sequence number, so the slot and send time of each request wait in a ring indexed by it.
/// </summary>
internal sealed class SockperfRrCodec : IRrCodec
{
    private readonly Pending[] _pending;
    private readonly ulong _mask;

    /// <param name="requestBytes">Message size, <see cref="SockperfHeader.Size"/> to <see cref="SockperfHeader.MaxMessage"/>.</param>
    /// <param name="outstanding">Requests that may await an answer at once; the ring holds the next power of two (at least 1,024). An answer to an older request is <see cref="RrResponseKind.Unknown"/>.</param>
    public SockperfRrCodec(int requestBytes, int outstanding)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(requestBytes, SockperfHeader.Size);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(requestBytes, SockperfHeader.MaxMessage);
        RequestBytes = requestBytes;
        var capacity = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(outstanding, 1024, MaxRing));
        _pending = new Pending[capacity];
        _mask = (ulong)capacity - 1;
    }

    /// <summary>The largest ring: 2^20 entries of 24 bytes, 24 MiB per connection.</summary>
    public const int MaxRing = 1 << 20;

    public int RequestBytes { get; }

    public void WriteRequest(Span<byte> request, ushort slot, ulong sequence, long timeNanoseconds)
    {
        var wire = sequence + 1;
        ref var entry = ref _pending[wire & _mask];

        // A full fence before the fields change: a reader halfway through the entry this one replaces
        // sees its number change and gives up instead of pairing the old number with the new time.
        Interlocked.Exchange(ref entry.WireSequence, 0);
        entry.Slot = slot;
        entry.SentNanoseconds = timeNanoseconds;

        // Published last: the receiving thread trusts the entry only while it holds this number.
        Volatile.Write(ref entry.WireSequence, wire);
        new SockperfHeader(wire, SockperfFlags.Client | SockperfFlags.PongRequest, request.Length).Write(request);
    }

    public RrResponseKind ReadResponse(ReadOnlySpan<byte> response, out PayloadHeader answered)
    {
        answered = default;
        if (SockperfHeader.TryRead(response, out var header) != SockperfHeaderError.None || header.Length != response.Length
            || header.IsClient || !header.IsPongRequest || header.Length != RequestBytes)
        {
            return RrResponseKind.Malformed;
        }

        ref var entry = ref _pending[header.Sequence & _mask];
        if (Volatile.Read(ref entry.WireSequence) != header.Sequence)
        {
            return RrResponseKind.Unknown;
        }

        var slot = entry.Slot;
        var sent = entry.SentNanoseconds;
        if (Volatile.Read(ref entry.WireSequence) != header.Sequence)
        {
            return RrResponseKind.Unknown;
        }

        answered = new PayloadHeader(PayloadKind.Response, slot, header.Sequence - 1, sent);
        return RrResponseKind.Answer;
    }

    private struct Pending
    {
        public ulong WireSequence;
        public long SentNanoseconds;
        public ushort Slot;
    }
}
