using System.Buffers;
using System.Net;

namespace Salvo.Streams;

/// <summary>The other end of a message exchange, over whichever transport carries it.</summary>
public interface IMessagePeer
{
    /// <summary>The transport in use.</summary>
    TransportKind Transport { get; }

    /// <summary>The peer's address.</summary>
    EndPoint? RemoteEndPoint { get; }

    /// <summary>Sends one message. False when the peer is gone (TCP closed) and the message was dropped.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The message is longer than the transport's maximum message size.</exception>
    ValueTask<bool> SendAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken = default);
}

/// <summary>
/// Handles one message from <paramref name="peer"/>. The message is valid until the returned task completes. A UDP
/// peer handed to a server's handler is valid for replies only until then as well; a TCP peer is its connection.
/// </summary>
public delegate ValueTask MessageHandler(IMessagePeer peer, ReadOnlySequence<byte> message);
