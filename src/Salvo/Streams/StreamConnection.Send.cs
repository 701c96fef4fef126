using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using Salvo.Pal;

namespace Salvo.Streams;

public sealed partial class StreamConnection
{
    // The connection whose handler is running synchronously on this thread, if any. Messages that handler sends are
    // queued without a flush and go out together when the frames of the current read are handled: a read that
    // carried N requests then costs one send system call for the N replies instead of N.
    [ThreadStatic]
    private static StreamConnection? t_dispatching;

    private long _queuedBytes;
    private long _sendBlockedSince;
    private bool _flushDeferred; // written under the send gate, only by the thread dispatching this connection

    /// <summary>Encoded bytes waiting for the socket (the send queue); at most <see cref="StreamOptions.MaxSendQueueBytes"/> plus one frame.</summary>
    public long QueuedSendBytes => Interlocked.Read(ref _queuedBytes);

    /// <summary>
    /// Queues one message. Completes at once while the send queue is under <see cref="StreamOptions.MaxSendQueueBytes"/>;
    /// otherwise waits until it drains to half (backpressure), for at most <see cref="StreamOptions.SendTimeout"/>, after
    /// which the connection is closed with <see cref="StreamCloseReason.SendTimeout"/>. Safe to call from several threads;
    /// messages keep the order in which the calls got the connection's send lock.
    /// </summary>
    /// <returns>True when the message is queued; false when the connection is closed or closing (the message is dropped).</returns>
    /// <exception cref="ArgumentOutOfRangeException">The message is longer than the framer's maximum message size.</exception>
    /// <exception cref="OperationCanceledException">Cancelled while waiting; the message, if written, stays queued.</exception>
    public async ValueTask<bool> SendAsync(ReadOnlyMemory<byte> message, CancellationToken cancellationToken = default)
    {
        CheckLength(message.Length);
        if (!IsOpen)
        {
            return false;
        }

        await _sendGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (!IsOpen)
            {
                return false;
            }

            if (QueuedSendBytes >= _host.MaxSendQueueBytes && !await WaitForRoomAsync(cancellationToken).ConfigureAwait(false))
            {
                return false;
            }

            if (!Enqueue(message.Span))
            {
                return false;
            }

            if (TryDeferFlush())
            {
                return true;
            }

            var flush = _output.Writer.FlushAsync(cancellationToken);
            return IsAccepted(flush.IsCompleted ? flush.Result : await WaitBlockedAsync(flush).ConfigureAwait(false));
        }
        finally
        {
            _sendGate.Release();
        }
    }

    /// <summary>
    /// Queues one message without waiting: false when the connection is closed, another send holds the send lock,
    /// or the send queue is at or over <see cref="StreamOptions.MaxSendQueueBytes"/>. For pushing to many
    /// connections from one thread, where one slow peer must not hold up the rest.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The message is longer than the framer's maximum message size.</exception>
    public bool TrySend(ReadOnlySpan<byte> message)
    {
        CheckLength(message.Length);
        if (!TryEnterSend())
        {
            return false;
        }

        if (!Enqueue(message))
        {
            _sendGate.Release();
            return false;
        }

        return FlushAfterTrySend();
    }

    /// <summary>
    /// Queues several messages, in order, under one hold of the send lock, and flushes once: on a connection that is
    /// not backed up they leave in one socket send rather than one each. All or none: false, with none queued, when
    /// the connection is closed, another send holds the send lock, or the send queue is at or over
    /// <see cref="StreamOptions.MaxSendQueueBytes"/> (the batch itself may take it past the limit by its own size).
    /// An empty batch queues nothing and returns whether the connection is open.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">A message is longer than the framer's maximum message size; none is queued.</exception>
    public bool TrySendBatch(ReadOnlySpan<ReadOnlyMemory<byte>> messages)
    {
        foreach (var message in messages)
        {
            CheckLength(message.Length);
        }

        if (messages.IsEmpty)
        {
            return IsOpen;
        }

        if (!TryEnterSend())
        {
            return false;
        }

        foreach (var message in messages)
        {
            if (!Enqueue(message.Span))
            {
                // The pool ran out mid-batch: Enqueue has dropped the connection, and what was queued goes with it.
                _sendGate.Release();
                return false;
            }
        }

        return FlushAfterTrySend();
    }

    /// <summary>Takes the send gate without waiting, when the connection is open and its queue under the limit.</summary>
    private bool TryEnterSend()
    {
        if (!IsOpen || !_sendGate.Wait(0))
        {
            return false;
        }

        if (!IsOpen || QueuedSendBytes >= _host.MaxSendQueueBytes)
        {
            _sendGate.Release();
            return false;
        }

        return true;
    }

    /// <summary>After a try-send queued its message(s): defers the flush to the dispatching receive loop, or flushes now.</summary>
    private bool FlushAfterTrySend()
    {
        if (TryDeferFlush())
        {
            _sendGate.Release();
            return true;
        }

        return FlushAndRelease();
    }

    /// <summary>
    /// When the caller is this connection's own handler, running synchronously on the receive loop, marks the flush as
    /// owed to <see cref="FlushDeferredAsync"/> and returns true. Called under the send gate.
    /// </summary>
    private bool TryDeferFlush()
    {
        if (t_dispatching != this)
        {
            return false;
        }

        _flushDeferred = true;
        return true;
    }

    /// <summary>
    /// Flushes without waiting and lets go of the send gate, which the caller holds: at once when the flush completes,
    /// otherwise (the queue is over the limit) only when it has drained, so that the next sender waits for the drain.
    /// </summary>
    /// <returns>False when the flush completed and found the connection done.</returns>
    private bool FlushAndRelease()
    {
        var flush = _output.Writer.FlushAsync();
        if (flush.IsCompleted)
        {
            _sendGate.Release();
            return IsAccepted(flush.Result);
        }

        _ = ReleaseAfterFlushAsync(flush);
        return true;
    }

    /// <summary>
    /// Sends what the handler queued while it ran synchronously. Called by the receive loop after the frames of a read,
    /// and before it awaits a handler that went asynchronous. Like <see cref="TrySend"/>, it does not wait for a full
    /// queue: the send gate stays held until the queue drains.
    /// </summary>
    private async ValueTask FlushDeferredAsync()
    {
        if (!_flushDeferred)
        {
            return;
        }

        await _sendGate.WaitAsync().ConfigureAwait(false);
        _flushDeferred = false;
        if (!IsOpen)
        {
            // A graceful close completes the writer, which commits what is queued; an abortive one discards it.
            _sendGate.Release();
            return;
        }

        _ = FlushAndRelease();
    }

    /// <summary>
    /// Waits for a full queue to drain to half before writing: after a send cancelled mid-wait, the next one must not
    /// add a second frame on top of the limit. An empty flush waits exactly as long as the paused writer would.
    /// </summary>
    private async ValueTask<bool> WaitForRoomAsync(CancellationToken cancellationToken) =>
        IsAccepted(await WaitBlockedAsync(_output.Writer.FlushAsync(cancellationToken)).ConfigureAwait(false));

    /// <summary>Awaits a flush held back by a full queue, marked so that the timeout timer can see how long it waits.</summary>
    private async ValueTask<FlushResult> WaitBlockedAsync(ValueTask<FlushResult> flush)
    {
        _host.Metrics.SendWaited();
        Volatile.Write(ref _sendBlockedSince, Environment.TickCount64);
        try
        {
            return await flush.ConfigureAwait(false);
        }
        finally
        {
            Volatile.Write(ref _sendBlockedSince, 0);
        }
    }

    private static bool IsAccepted(FlushResult result) => !result.IsCompleted && !result.IsCanceled;

    private void CheckLength(int length)
    {
        if (length > _host.Framer.MaxMessageSize)
        {
            throw new ArgumentOutOfRangeException(
                "message", length, $"The message has {length} bytes; the framer's MaxMessageSize is {_host.Framer.MaxMessageSize}.");
        }
    }

    /// <summary>Encodes into the output pipe; false when the pool ran out mid-frame (the connection is then dropped).</summary>
    private bool Enqueue(ReadOnlySpan<byte> message)
    {
        var writer = _output.Writer;
        var unflushed = writer.UnflushedBytes; // more than zero when earlier replies wait for a deferred flush
        try
        {
            _host.Framer.Encode(message, writer);
        }
        catch (InsufficientMemoryException e)
        {
            // Half a frame may be in the pipe: the stream cannot go on, so the connection goes, not just the message.
            _ = Close(StreamCloseReason.BufferPoolExhausted, e.Message, graceful: false);
            return false;
        }

        Interlocked.Add(ref _queuedBytes, writer.UnflushedBytes - unflushed);
        _host.Metrics.MessageSent();
        return true;
    }

    private async Task ReleaseAfterFlushAsync(ValueTask<FlushResult> flush)
    {
        try
        {
            await WaitBlockedAsync(flush).ConfigureAwait(false);
        }
        finally
        {
            _sendGate.Release();
        }
    }

    private async Task SendLoopAsync()
    {
        // As the receive loop does: Start stores this task before the loop sends anything, so a close begun after
        // Start returned waits for this loop and not for a placeholder.
        await Task.CompletedTask.ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
        var reader = _output.Reader;
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                if (result.IsCanceled)
                {
                    break;
                }

                await SendQueuedAsync(buffer).ConfigureAwait(false);

                if (!buffer.IsEmpty)
                {
                    Touch();
                }

                // Length before AdvanceTo: that returns the blocks to the pool, and a sequence over more than one
                // block then measures recycled segments (a 48 KB queue was counted as 3,316 bytes sent, so the
                // queue looked ever fuller until try-sends were refused for good).
                var length = buffer.Length;
                reader.AdvanceTo(buffer.End);
                Interlocked.Add(ref _queuedBytes, -length);
                if (result.IsCompleted)
                {
                    break;
                }
            }
        }
        catch (Exception e)
        {
            _ = Close(StreamCloseReason.SocketError, e.Message, graceful: false);
        }
        finally
        {
            await reader.CompleteAsync().ConfigureAwait(false);
            PartDone();
        }
    }

    /// <summary>
    /// Sends <paramref name="queue"/>: several blocks in one gathered <c>sendmsg</c> where the platform has it, else
    /// (and for a last single block, or once the socket buffer is full) through the runtime, which waits for room.
    /// </summary>
    private async ValueTask SendQueuedAsync(ReadOnlySequence<byte> queue)
    {
        var rest = queue;
        while (!rest.IsEmpty)
        {
            // Each send is counted as issued, before the call: the peer can read the bytes before the call returns.
            long sent = 0;
            if (!rest.IsSingleSegment && Platform.Current.GathersStreamSends)
            {
                _host.Metrics.SocketSend();
                sent = Platform.Current.TrySendGathered(_socket, rest);
            }

            if (sent == 0)
            {
                // A stream socket's SendAsync completes only when the whole block is with the kernel. The first
                // non-empty block: a read can start at the very end of a block the writer still held, and sending
                // that empty block while the socket buffer is full would spin without waiting.
                var block = FirstNonEmpty(rest);
                _host.Metrics.SocketSend();
                await _socket.SendAsync(block, SocketFlags.None).ConfigureAwait(false);
                sent = block.Length;
            }

            rest = rest.Slice(sent);
        }
    }

    private static ReadOnlyMemory<byte> FirstNonEmpty(in ReadOnlySequence<byte> queue)
    {
        foreach (var block in queue)
        {
            if (!block.IsEmpty)
            {
                return block;
            }
        }

        return ReadOnlyMemory<byte>.Empty;
    }
}
