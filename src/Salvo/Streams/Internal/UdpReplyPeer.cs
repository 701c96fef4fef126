using System.Net;

namespace Salvo.Streams;

/// <summary>
/// The UDP sender of the datagram being handled. One instance per receive loop, pointed at each datagram's source in
/// turn; replies go into the loop's send batch, flushed once per received batch (one sendmmsg on Linux).
/// </summary>
internal sealed class UdpReplyPeer(DatagramSocket socket, SendBatch replies) : IMessagePeer
{
    public DatagramAddress Source { get; set; }

    public TransportKind Transport => TransportKind.Udp;

    public EndPoint? RemoteEndPoint => Source.ToIPEndPoint();

    public async ValueTask<bool> SendAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken = default)
    {
        UdpEnvelope.CheckMessageLength(message.Length);

        if (!TryAdd(message.Span, Source))
        {
            await FlushAsync(cancellationToken).ConfigureAwait(false);
            TryAdd(message.Span, Source);
        }

        return true;
    }

    public bool TryAdd(ReadOnlySpan<byte> message, DatagramAddress destination)
    {
        if (!replies.TryAdd(message.Length + UdpEnvelope.HeaderLength, destination, out var datagram))
        {
            return false;
        }

        datagram[0] = UdpEnvelope.Data;
        message.CopyTo(datagram[UdpEnvelope.HeaderLength..]);
        return true;
    }

    /// <summary>Queues a HELLO-ACK echoing <paramref name="nonce"/>, flushing first when the batch is full.</summary>
    public async ValueTask AnswerHelloAsync(ulong nonce, DatagramAddress destination, CancellationToken cancellationToken)
    {
        if (!TryAddHelloAck(nonce, destination))
        {
            await FlushAsync(cancellationToken).ConfigureAwait(false);
            TryAddHelloAck(nonce, destination);
        }
    }

    private bool TryAddHelloAck(ulong nonce, DatagramAddress destination)
    {
        if (!replies.TryAdd(UdpEnvelope.HandshakeLength, destination, out var datagram))
        {
            return false;
        }

        UdpEnvelope.WriteHandshake(datagram, UdpEnvelope.HelloAck, nonce);
        return true;
    }

    public async ValueTask FlushAsync(CancellationToken cancellationToken)
    {
        if (replies.Count > 0)
        {
            await socket.SendAsync(replies, cancellationToken).ConfigureAwait(false);
            replies.Clear();
        }
    }
}
