namespace Salvo.Tunnel;

/// <summary>
/// What went through the tunnel and what was dropped, and why; each count only grows. Written under the engine's
/// lock; read from any thread (aligned 64-bit reads do not tear on the platforms .NET runs on).
/// </summary>
public sealed class TunnelCounters
{
    private readonly long[] _dropped = new long[Enum.GetValues<TunnelDropReason>().Length];
    private long _receiveBatches;
    private long _datagramsInReceiveBatches;
    private long _sendBatches;
    private long _packetsInSendBatches;

    /// <summary>IP packets from the device encrypted and sent.</summary>
    public long PacketsSent { get; internal set; }

    /// <summary>Bytes of the IP packets in <see cref="PacketsSent"/>.</summary>
    public long BytesSent { get; internal set; }

    /// <summary>IP packets decrypted, authenticated, allowed and handed to the device.</summary>
    public long PacketsReceived { get; internal set; }

    /// <summary>Bytes of the IP packets in <see cref="PacketsReceived"/>.</summary>
    public long BytesReceived { get; internal set; }

    /// <summary>Handshakes completed as the initiator (a response was accepted).</summary>
    public long HandshakesInitiated { get; internal set; }

    /// <summary>Handshakes answered as the responder (an initiation was accepted and a response sent).</summary>
    public long HandshakesAnswered { get; internal set; }

    /// <summary>Cookie replies sent because of load.</summary>
    public long CookieRepliesSent { get; internal set; }

    /// <summary>Cookie replies received from peers under load and accepted (they authenticated).</summary>
    public long CookieRepliesReceived { get; internal set; }

    /// <summary>Batches of datagrams received from the network (each one receive call that returned some).</summary>
    public long ReceiveBatches => Volatile.Read(ref _receiveBatches);

    /// <summary>Datagrams in the <see cref="ReceiveBatches"/>: divided by them, the mean receive batch.</summary>
    public long DatagramsInReceiveBatches => Volatile.Read(ref _datagramsInReceiveBatches);

    /// <summary>Batches of packets read from the device and sent (each one read that returned some).</summary>
    public long SendBatches => Volatile.Read(ref _sendBatches);

    /// <summary>Packets in the <see cref="SendBatches"/>: divided by them, the mean send batch.</summary>
    public long PacketsInSendBatches => Volatile.Read(ref _packetsInSendBatches);

    /// <summary>Peers moved from UDP to TCP (UDP went unanswered, or the peer came over TCP).</summary>
    public long PathSwitchesToTcp { get; internal set; }

    /// <summary>Peers moved from TCP back to UDP (a UDP probe was answered, or the TCP connection closed).</summary>
    public long PathSwitchesToUdp { get; internal set; }

    /// <summary>
    /// The name a reason is tagged and labelled under: its name in snake case (<see cref="TunnelDropReason.DecryptionFailed"/>
    /// is <c>decryption_failed</c>), the tunnel meter's error.type and the daemon's Prometheus label alike.
    /// </summary>
    public static string NameOf(TunnelDropReason reason) =>
        string.Concat(reason.ToString().Select((c, i) => char.IsUpper(c) && i > 0 ? "_" + char.ToLowerInvariant(c) : char.ToLowerInvariant(c).ToString()));

    /// <summary>Datagrams or packets dropped for <paramref name="reason"/>.</summary>
    public long this[TunnelDropReason reason] => Volatile.Read(ref _dropped[(int)reason]);

    /// <summary>Every drop, whatever the reason.</summary>
    public long TotalDropped
    {
        get
        {
            long total = 0;
            for (var i = 0; i < _dropped.Length; i++)
            {
                total += Volatile.Read(ref _dropped[i]);
            }

            return total;
        }
    }

    /// <summary>Every reason with its count, in the enum's order, zeros included: for status output and the control socket's <c>get</c>.</summary>
    internal IReadOnlyList<(TunnelDropReason Reason, long Count)> DropCounts() => [.. Enum.GetValues<TunnelDropReason>().Select(reason => (reason, this[reason]))];

    /// <summary>Counts drops; atomic, because the device counts the control sends it dropped outside the engine's lock.</summary>
    internal void Drop(TunnelDropReason reason, long count = 1) => Interlocked.Add(ref _dropped[(int)reason], count);

    /// <summary>Counts one received batch; only the receive loop (it holds the engine's receive gate) calls it.</summary>
    internal void CountReceiveBatch(int datagrams)
    {
        Volatile.Write(ref _receiveBatches, _receiveBatches + 1);
        Volatile.Write(ref _datagramsInReceiveBatches, _datagramsInReceiveBatches + datagrams);
    }

    /// <summary>Counts one batch read from the device; only the send loop (it holds the engine's send gate) calls it.</summary>
    internal void CountSendBatch(int packets)
    {
        Volatile.Write(ref _sendBatches, _sendBatches + 1);
        Volatile.Write(ref _packetsInSendBatches, _packetsInSendBatches + packets);
    }
}
