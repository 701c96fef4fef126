using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    private HandshakeQueue? _handshakeQueue;

    /// <summary>
    /// Hands the handshake messages of received batches (<see cref="ReceiveDatagrams"/>) to <paramref name="queue"/>
    /// instead of answering them on the receiving thread; whoever serves the queue calls <see cref="ServeHandshake"/>.
    /// Its depth counts towards being under load. An engine without a queue (engine-side tests and benchmarks, the
    /// TCP fallback's single messages) answers handshakes where they arrive.
    /// </summary>
    internal void UseHandshakeQueue(HandshakeQueue queue) => _handshakeQueue = queue;

    /// <summary>Answers one handshake message taken from the queue: the same steps it would have had on the receiving thread.</summary>
    internal void ServeHandshake(ReadOnlySpan<byte> message, DatagramAddress source, ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(output);
        ReceiveHandshake(MessageLayout.Classify(message), message, source, output);
    }

    /// <summary>
    /// Queues a handshake message for the handshake thread; true when it was queued or dropped because the queue was
    /// full (counted as <see cref="TunnelDropReason.HandshakeQueueFull"/>, without the engine's lock, so a storm never
    /// holds up the batch), false when there is no queue or the message is no handshake message (answered inline).
    /// </summary>
    private bool TryQueueHandshake(MessageType type, ReadOnlySpan<byte> message, DatagramAddress source)
    {
        if (_handshakeQueue is not { } queue || type is not (MessageType.Initiation or MessageType.Response or MessageType.CookieReply))
        {
            return false;
        }

        if (!queue.TryAdd(message, source))
        {
            Counters.Drop(TunnelDropReason.HandshakeQueueFull);
        }

        return true;
    }

    /// <summary>Whether the handshake queue is deep enough to need cookies (see <see cref="HandshakeQueue.IsLoaded"/>).</summary>
    private bool HandshakeQueueLoaded => _handshakeQueue is { IsLoaded: true };
}
