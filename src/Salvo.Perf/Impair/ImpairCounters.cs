namespace Salvo.Perf.Impair;

/// <summary>One direction's running counts, owned by its <see cref="ImpairLine{T}"/>.</summary>
internal sealed class ImpairCounters
{
    public long Received { get; set; }

    public long Forwarded { get; set; }

    public long Dropped { get; set; }

    public long Duplicated { get; set; }

    public long Held { get; set; }

    public long Reordered { get; set; }

    public long Delayed { get; set; }

    public long SendErrors { get; set; }

    public ImpairDirectionReport Report(string direction, int pending) =>
        new(direction, Received, Forwarded, Dropped, Duplicated, Held, Reordered, Delayed, SendErrors, pending);
}

/// <summary>
/// What the relay did to one direction. The counts add up: <c>received - dropped + duplicated =
/// forwarded + sendErrors + pending</c>.
/// </summary>
/// <param name="Direction">"client-to-server" or "server-to-client".</param>
/// <param name="Received">Datagrams that arrived.</param>
/// <param name="Forwarded">Copies sent on (a duplicated datagram counts twice).</param>
/// <param name="Dropped">Datagrams discarded on purpose.</param>
/// <param name="Duplicated">Datagrams sent twice (the extra copies).</param>
/// <param name="Held">Datagrams held back to be overtaken.</param>
/// <param name="Reordered">Datagrams that left after one that arrived later (what a receiver counts out of order).</param>
/// <param name="Delayed">Datagrams that left later than they arrived because of the delay.</param>
/// <param name="SendErrors">Copies the kernel refused to send.</param>
/// <param name="Pending">Copies still waiting (delayed or held) at the time of the report.</param>
internal sealed record ImpairDirectionReport(string Direction, long Received, long Forwarded, long Dropped, long Duplicated, long Held, long Reordered, long Delayed, long SendErrors, long Pending)
{
    /// <summary>Adds two reports of the same direction (several client sessions).</summary>
    public ImpairDirectionReport Add(ImpairDirectionReport other) => new(Direction,
        Received + other.Received, Forwarded + other.Forwarded, Dropped + other.Dropped, Duplicated + other.Duplicated, Held + other.Held,
        Reordered + other.Reordered, Delayed + other.Delayed, SendErrors + other.SendErrors, Pending + other.Pending);
}

/// <summary>Everything the relay did.</summary>
/// <param name="ClientToServer">The forward direction.</param>
/// <param name="ServerToClient">The reply direction.</param>
/// <param name="Sessions">Client addresses seen (each got its own upstream socket).</param>
/// <param name="SessionsRefused">Datagrams from new clients turned away because the session limit was reached.</param>
/// <param name="ForeignReplies">Datagrams that reached an upstream socket from somewhere other than the server, or for a client already forgotten; ignored.</param>
internal sealed record ImpairReport(ImpairDirectionReport ClientToServer, ImpairDirectionReport ServerToClient, long Sessions, long SessionsRefused, long ForeignReplies);
