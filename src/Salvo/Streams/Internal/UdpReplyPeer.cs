using System.Net;
using Salvo.Server;

namespace Salvo.Streams;

/// <summary>
/// The UDP sender of the datagram being handled. One instance per server worker, pointed at each batch's context and
/// each datagram's source in turn; replies go into the worker's reply batch, sent once per received batch (one
/// sendmmsg on Linux) or earlier when it fills.
/// </summary>
internal sealed class UdpReplyPeer : IMessagePeer
{
    private DatagramContext _context;
    private long _sent;

    public DatagramAddress Source { get; private set; }

    public TransportKind Transport => TransportKind.Udp;

    public EndPoint? RemoteEndPoint => Source.ToIPEndPoint();

    /// <summary>Messages sent (taken into the reply batch) since the server started.</summary>
    public long Sent => Interlocked.Read(ref _sent);

    /// <summary>Points the peer at one received datagram of the batch in <paramref name="context"/>.</summary>
    public void Begin(in DatagramContext context, DatagramAddress source)
    {
        _context = context;
        Source = source;
    }

    public async ValueTask<bool> SendAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken = default)
    {
        UdpEnvelope.CheckMessageLength(message.Length);
        if (!TryAdd(message.Span))
        {
            await _context.FlushRepliesAsync().ConfigureAwait(false);
            TryAdd(message.Span);
        }

        Interlocked.Increment(ref _sent);
        return true;
    }

    /// <summary>Queues a HELLO-ACK echoing <paramref name="nonce"/>, flushing first when the batch is full.</summary>
    public async ValueTask AnswerHelloAsync(ulong nonce)
    {
        if (!TryAddHelloAck(nonce))
        {
            await _context.FlushRepliesAsync().ConfigureAwait(false);
            TryAddHelloAck(nonce);
        }
    }

    private bool TryAdd(ReadOnlySpan<byte> message)
    {
        if (!_context.Replies.TryAdd(message.Length + UdpEnvelope.HeaderLength, Source, out var datagram))
        {
            return false;
        }

        datagram[0] = UdpEnvelope.Data;
        message.CopyTo(datagram[UdpEnvelope.HeaderLength..]);
        return true;
    }

    private bool TryAddHelloAck(ulong nonce)
    {
        if (!_context.Replies.TryAdd(UdpEnvelope.HandshakeLength, Source, out var datagram))
        {
            return false;
        }

        UdpEnvelope.WriteHandshake(datagram, UdpEnvelope.HelloAck, nonce);
        return true;
    }
}
