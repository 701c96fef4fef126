using System.Buffers;

namespace Salvo.Streams;

/// <summary>
/// The application side of framed connections. One connection calls its handler one message at a time, in
/// order; different connections call it concurrently.
/// </summary>
public interface IStreamHandler
{
    /// <summary>
    /// Handles one message. <paramref name="message"/> is valid until the returned task completes; copy what must
    /// live longer. Reply with <see cref="StreamConnection.SendAsync"/>. The connection reads nothing more until
    /// the task completes, so a slow handler slows only its own peer (TCP flow control). A throw closes the
    /// connection with <see cref="StreamCloseReason.HandlerError"/>.
    /// </summary>
    ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message);

    /// <summary>
    /// Called after the messages of one read from the socket were handled (several when the peer sends faster than
    /// they are read): a handler that batches its own work (packets for a device, replies) finishes the batch here
    /// instead of once a message. Runs like a message's handler, so replies sent from it leave with that read's other
    /// replies in one socket send. A throw closes the connection with <see cref="StreamCloseReason.HandlerError"/>.
    /// Defaults to nothing.
    /// </summary>
    void OnReadHandled(StreamConnection connection)
    {
    }

    /// <summary>Called once when a connection opens, before its first message.</summary>
    void OnConnected(StreamConnection connection)
    {
    }

    /// <summary>Called once when a connection has closed, with the reason.</summary>
    void OnClosed(StreamConnection connection, StreamCloseReason reason)
    {
    }
}
