using System.Net.Sockets;

namespace Salvo.Streams;

public sealed partial class StreamConnection
{
    // The receive loop, the send loop and the close routine each finish on their own; the last one to
    // finish releases the connection's buffers and reports it closed. A handler that does not return within
    // the close timeout is not waited for: its part is counted done and its input blocks come back when it returns.
    private int _runningParts;
    private int _receiveReported;

    internal Task Close(StreamCloseReason reason, string? detail, bool graceful)
    {
        if (Interlocked.CompareExchange(ref _state, Closing, Open) != Open)
        {
            return Completion;
        }

        CloseReason = reason;
        if (Volatile.Read(ref _closingSource) is { } closing)
        {
            // Callbacks run on the thread pool, not inside whatever started the close.
            _ = closing.CancelAsync();
        }

        if (reason is StreamCloseReason.MalformedFrame or StreamCloseReason.OversizeFrame or StreamCloseReason.SendTimeout or StreamCloseReason.BufferPoolExhausted)
        {
            StreamLog.ClosedOnError(_host.Logger, Id, RemoteEndPoint, reason, detail ?? string.Empty);
        }
        else
        {
            StreamLog.Closed(_host.Logger, Id, RemoteEndPoint, reason, detail ?? string.Empty);
        }

        _ = CloseCoreAsync(graceful);
        return Completion;
    }

    /// <summary>Cuts a close short: the socket goes at once, so the graceful steps still waiting end now.</summary>
    internal void Drop()
    {
        if (Volatile.Read(ref _state) == Closed)
        {
            return;
        }

        _output.Reader.CancelPendingRead();
        _socket.Dispose();
        ReceivePartDone();
    }

    /// <summary>The receive loop's part is done: called by the loop as it ends, or on its behalf when its handler is stuck.</summary>
    private void ReceivePartDone()
    {
        if (Interlocked.Exchange(ref _receiveReported, 1) == 0)
        {
            PartDone();
        }
    }

    private async Task WatchForStuckHandlerAsync()
    {
        try
        {
            await _receiveLoop.WaitAsync(_host.CloseTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            StreamLog.HandlerStuck(_host.Logger, Id, RemoteEndPoint, _host.CloseTimeout);
            ReceivePartDone();
        }
    }

    private async Task CloseCoreAsync(bool graceful)
    {
        try
        {
            if (graceful && await DrainAsync().ConfigureAwait(false))
            {
                // End of stream for the peer, then wait for its own, so that closing with unread bytes does not
                // turn into a reset that could destroy what the peer has not read yet.
                _socket.Shutdown(SocketShutdown.Send);
                await _receiveLoop.WaitAsync(_host.CloseTimeout).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is TimeoutException or SocketException or ObjectDisposedException)
        {
            // The peer did not finish in time or the socket is gone: drop the connection below.
        }
        finally
        {
            _output.Reader.CancelPendingRead();
            _socket.Dispose();
            _ = WatchForStuckHandlerAsync();
            PartDone();
        }
    }

    /// <summary>Sends what is queued and stops the send loop. False when that does not happen within the close timeout.</summary>
    private async Task<bool> DrainAsync()
    {
        if (!await _sendGate.WaitAsync(_host.CloseTimeout).ConfigureAwait(false))
        {
            return false;
        }

        try
        {
            await _output.Writer.CompleteAsync().ConfigureAwait(false);
        }
        finally
        {
            _sendGate.Release();
        }

        await _sendLoop.WaitAsync(_host.CloseTimeout).ConfigureAwait(false);
        return true;
    }

    private void PartDone()
    {
        if (Interlocked.Decrement(ref _runningParts) == 0)
        {
            _ = FinishAsync();
        }
    }

    private async Task FinishAsync()
    {
        // Both loops have ended, so a sender still holding the gate is about to see a completed reader and let go.
        await _sendGate.WaitAsync().ConfigureAwait(false);
        await _output.Writer.CompleteAsync().ConfigureAwait(false);
        _sendGate.Release();

        _host.Remove(this);
        _host.Metrics.Closed(CloseReason);
        try
        {
            _host.Handler.OnClosed(this, CloseReason);
        }
        catch (Exception e)
        {
            StreamLog.HandlerFailed(_host.Logger, Id, RemoteEndPoint, e);
        }

        // A full fence between publishing Closed and reading the completion source: Completion's getter publishes
        // the source and then reads the state, so with only release/acquire ordering both sides could read the
        // old value (a store followed by a load may be reordered) and Completion would never complete.
        Interlocked.Exchange(ref _state, Closed);

        // Last, so that whoever awaits Completion (StopAsync among them) sees OnClosed done.
        Volatile.Read(ref _closedSource)?.TrySetResult();
    }
}
