namespace Salvo.Streams;

/// <summary>A <see cref="MessageTransport"/>'s message counters, per transport; one interlocked add per message.</summary>
internal sealed class TransportCounters
{
    private long _udpSent;
    private long _udpReceived;
    private long _tcpSent;
    private long _tcpReceived;
    private long _refused;
    private long _udpDropped;
    private long _tcpReconnects;

    public void OnSent(TransportKind transport, bool taken)
    {
        if (!taken)
        {
            Interlocked.Increment(ref _refused);
        }
        else if (transport == TransportKind.Udp)
        {
            Interlocked.Increment(ref _udpSent);
        }
        else
        {
            Interlocked.Increment(ref _tcpSent);
        }
    }

    public void OnUdpReceived() => Interlocked.Increment(ref _udpReceived);

    public void OnTcpReceived() => Interlocked.Increment(ref _tcpReceived);

    public void OnUdpDropped() => Interlocked.Increment(ref _udpDropped);

    public void OnTcpReconnected() => Interlocked.Increment(ref _tcpReconnects);

    public MessageTransportStatistics Snapshot() => new()
    {
        UdpMessagesSent = Interlocked.Read(ref _udpSent),
        UdpMessagesReceived = Interlocked.Read(ref _udpReceived),
        TcpMessagesSent = Interlocked.Read(ref _tcpSent),
        TcpMessagesReceived = Interlocked.Read(ref _tcpReceived),
        MessagesRefused = Interlocked.Read(ref _refused),
        UdpDatagramsDropped = Interlocked.Read(ref _udpDropped),
        TcpReconnects = Interlocked.Read(ref _tcpReconnects),
    };
}
