using System.Diagnostics;
using System.Diagnostics.Metrics;
using Salvo.Diagnostics;

namespace Salvo.Streams;

/// <summary>
/// Instruments of framed connections on the <see cref="SalvoMeter"/>. Every measurement carries
/// <c>network.transport=tcp</c>; closes also carry the drop-reason tag (<see cref="SalvoMeter.DropReasonTag"/>, a
/// <see cref="StreamCloseReason"/> in snake case).
/// </summary>
internal sealed class StreamMetrics
{
    private static readonly KeyValuePair<string, object?> Transport = new("network.transport", "tcp");

    private readonly Counter<long> _opened;
    private readonly Counter<long> _closed;
    private readonly UpDownCounter<long> _active;
    private readonly Counter<long> _messagesReceived;
    private readonly Counter<long> _messagesSent;
    private readonly Counter<long> _sendWaits;
    private readonly Counter<long> _socketSends;

    public StreamMetrics(IMeterFactory? meterFactory)
    {
        var meter = SalvoMeter.Get(meterFactory);
        _opened = meter.CreateCounter<long>("salvo.stream.connections.opened", "{connection}", "Framed connections opened.");
        _closed = meter.CreateCounter<long>("salvo.stream.connections.closed", "{connection}", "Framed connections closed, by error.type (the close reason).");
        _active = meter.CreateUpDownCounter<long>("salvo.stream.connections.active", "{connection}", "Framed connections open now.");
        _messagesReceived = meter.CreateCounter<long>("salvo.stream.messages.received", "{message}", "Messages decoded and handed to the handler.");
        _messagesSent = meter.CreateCounter<long>("salvo.stream.messages.sent", "{message}", "Messages queued for sending.");
        _sendWaits = meter.CreateCounter<long>("salvo.stream.send.waits", "{send}", "Sends that found the send queue full and had to wait.");
        _socketSends = meter.CreateCounter<long>(
            "salvo.stream.socket.sends", "{call}", "Socket send calls that carried queued messages; messages sent over this is the batching achieved.");
    }

    public void Opened()
    {
        _opened.Add(1, Transport);
        _active.Add(1, Transport);
    }

    public void Closed(StreamCloseReason reason)
    {
        _active.Add(-1, Transport);
        _closed.Add(1, Transport, new KeyValuePair<string, object?>(SalvoMeter.DropReasonTag, ReasonTag(reason)));
    }

    public void MessageReceived() => _messagesReceived.Add(1, Transport);

    public void MessageSent() => _messagesSent.Add(1, Transport);

    public void SendWaited() => _sendWaits.Add(1, Transport);

    public void SocketSend() => _socketSends.Add(1, Transport);

    public static string ReasonTag(StreamCloseReason reason) => reason switch
    {
        StreamCloseReason.RemoteClosed => "remote_closed",
        StreamCloseReason.LocalClose => "local_close",
        StreamCloseReason.IdleTimeout => "idle_timeout",
        StreamCloseReason.MalformedFrame => "malformed_frame",
        StreamCloseReason.OversizeFrame => "oversize_frame",
        StreamCloseReason.SendTimeout => "send_timeout",
        StreamCloseReason.SocketError => "socket_error",
        StreamCloseReason.BufferPoolExhausted => "buffer_pool_exhausted",
        StreamCloseReason.HandlerError => "handler_error",
        StreamCloseReason.Shutdown => "shutdown",
        _ => throw new UnreachableException($"No tag for {reason}."),
    };
}
