namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>
/// What one receive worker or one TCP connection did with sockperf messages. Written by its one owner
/// thread (plain increments published with Volatile), read by the reporter at any time.
/// </summary>
internal sealed class SockperfCounters
{
    private long _messages;
    private long _replies;
    private long _warmups;
    private long _ignored;
    private long _malformed;

    /// <summary>Counts one message by what was done with it.</summary>
    public void Record(SockperfVerdict verdict)
    {
        switch (verdict)
        {
            case SockperfVerdict.Reply:
                Volatile.Write(ref _messages, _messages + 1);
                Volatile.Write(ref _replies, _replies + 1);
                break;
            case SockperfVerdict.Count:
                Volatile.Write(ref _messages, _messages + 1);
                break;
            case SockperfVerdict.Warmup:
                Volatile.Write(ref _warmups, _warmups + 1);
                break;
            case SockperfVerdict.NotFromClient:
                Volatile.Write(ref _ignored, _ignored + 1);
                break;
            default:
                Volatile.Write(ref _malformed, _malformed + 1);
                break;
        }
    }

    /// <summary>The counts so far.</summary>
    public SockperfTotals Read() => new(Volatile.Read(ref _messages), Volatile.Read(ref _replies), Volatile.Read(ref _warmups),
        Volatile.Read(ref _ignored), Volatile.Read(ref _malformed));
}

/// <summary>Sockperf message counts.</summary>
/// <param name="Messages">Client messages received and handled (warm-up excluded): sockperf server's "Total N messages received and handled", and the client's SentMessages when none were lost.</param>
/// <param name="Replies">Of those, pong requests answered: the client's ReceivedMessages when none were lost.</param>
/// <param name="Warmups">Warm-up messages (neither answered nor counted as messages).</param>
/// <param name="Ignored">Messages without the client flag.</param>
/// <param name="Malformed">Datagrams whose length field disagreed with their size, and TCP connections closed for a bad header.</param>
internal readonly record struct SockperfTotals(long Messages, long Replies, long Warmups, long Ignored, long Malformed)
{
    public static SockperfTotals operator +(SockperfTotals a, SockperfTotals b) =>
        new(a.Messages + b.Messages, a.Replies + b.Replies, a.Warmups + b.Warmups, a.Ignored + b.Ignored, a.Malformed + b.Malformed);

    public static SockperfTotals operator -(SockperfTotals a, SockperfTotals b) =>
        new(a.Messages - b.Messages, a.Replies - b.Replies, a.Warmups - b.Warmups, a.Ignored - b.Ignored, a.Malformed - b.Malformed);
}
