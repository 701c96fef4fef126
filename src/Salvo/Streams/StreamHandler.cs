using System.Buffers;

namespace Salvo.Streams;

/// <summary>Builds an <see cref="IStreamHandler"/> from delegates.</summary>
public static class StreamHandler
{
    /// <summary>A handler that does nothing with messages (a client that only sends, a load generator).</summary>
    public static IStreamHandler Ignore { get; } = Create(static (_, _) => ValueTask.CompletedTask);

    /// <summary>A handler that calls <paramref name="onMessage"/> for each message, and <paramref name="onClosed"/> when a connection closes.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="onMessage"/> is null.</exception>
    public static IStreamHandler Create(
        Func<StreamConnection, ReadOnlySequence<byte>, ValueTask> onMessage,
        Action<StreamConnection, StreamCloseReason>? onClosed = null)
    {
        ArgumentNullException.ThrowIfNull(onMessage);
        return new DelegateHandler(onMessage, onClosed);
    }

    private sealed class DelegateHandler(
        Func<StreamConnection, ReadOnlySequence<byte>, ValueTask> onMessage,
        Action<StreamConnection, StreamCloseReason>? onClosed) : IStreamHandler
    {
        public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message) => onMessage(connection, message);

        public void OnClosed(StreamConnection connection, StreamCloseReason reason) => onClosed?.Invoke(connection, reason);
    }
}
