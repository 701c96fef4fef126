namespace Salvo.Streams;

/// <summary>Why a <see cref="StreamConnection"/> closed; also the <c>reason</c> tag of <c>salvo.stream.connections.closed</c>.</summary>
public enum StreamCloseReason
{
    /// <summary>The connection is still open.</summary>
    None,

    /// <summary>The peer closed its side (end of stream).</summary>
    RemoteClosed,

    /// <summary>This side called <see cref="StreamConnection.CloseAsync"/>.</summary>
    LocalClose,

    /// <summary>Nothing was received or sent for the idle timeout.</summary>
    IdleTimeout,

    /// <summary>The peer sent bytes that break the framing.</summary>
    MalformedFrame,

    /// <summary>The peer sent a message over the framer's maximum message size.</summary>
    OversizeFrame,

    /// <summary>The send queue stayed full for the send timeout: the peer is not reading.</summary>
    SendTimeout,

    /// <summary>The socket failed (reset, aborted).</summary>
    SocketError,

    /// <summary>The buffer pool was at its limit (<see cref="Buffers.PinnedBufferPool.MaxBytes"/>) when the connection needed a block.</summary>
    BufferPoolExhausted,

    /// <summary>The message handler threw.</summary>
    HandlerError,

    /// <summary>The server or client that owns the connection was stopped or disposed.</summary>
    Shutdown,
}
