using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace Salvo.Server;

/// <summary>
/// The worker's loops, written once for both I/O models. Every wait goes through <see cref="ServerWorker.Waits"/>:
/// on a dedicated thread each wait blocks and returns a completed task, so the loop never suspends and runs to its
/// end on the worker's own thread (no thread-pool hop, no allocation); in the async model the same waits are awaited.
/// </summary>
internal sealed partial class ServerWorker
{
    private async Task RunReceiveLoopAsync()
    {
        try
        {
            while (!_receiveStop.IsCancellationRequested)
            {
                int received;
                try
                {
                    received = await _waits.ReceiveAsync().ConfigureAwait(false);
                }
                catch (SocketException e)
                {
                    OnReceiveError(e);
                    await _waits.BackOffAsync().ConfigureAwait(false);
                    continue;
                }

                if (received == 0 || !Accept(_receiveBatch))
                {
                    continue;
                }

                if (_queue is null)
                {
                    await HandleAsync(_receiveBatch).ConfigureAwait(false);
                }
                else
                {
                    await EnqueueAsync(_receiveBatch).ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or OperationCanceledException)
        {
            // The socket closed or the stop cancelled the wait: the loop ends here.
        }
        finally
        {
            _receiverDone = true;
            _queue?.WakeConsumer();
        }
    }

    private async Task RunProcessLoopAsync()
    {
        var queue = _queue!;
        var batch = _processBatch!;
        try
        {
            while (!_drainStop.IsCancellationRequested)
            {
                if (queue.Dequeue(batch) > 0)
                {
                    await HandleAsync(batch).ConfigureAwait(false);
                    continue;
                }

                if (_receiverDone && queue.Count == 0)
                {
                    break;
                }

                await _waits.ForItemsAsync(queue).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or OperationCanceledException)
        {
            // The stop gave up draining or closed the socket.
        }
    }

    // Pooled: in the async model a wait for room or an asynchronous handler suspends these once per batch; a
    // pooled state machine keeps that from allocating.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask EnqueueAsync(ReceiveBatch batch)
    {
        var outcome = default(EnqueueOutcome);
        var next = 0;
        try
        {
            while ((next = _queue!.Enqueue(batch, next, _policy, ref outcome)) < batch.Count)
            {
                await _waits.ForSpaceAsync(_queue).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException)
        {
            outcome.Closed += batch.Count - next;
        }

        RecordEnqueue(outcome);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask HandleAsync(ReceiveBatch batch)
    {
        var context = BeginHandle(batch);
        try
        {
            await _waits.InvokeHandlerAsync(context).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            OnHandlerError(e);
        }

        await SendRepliesAsync().ConfigureAwait(false);
    }

    /// <summary>Sends what the handler added to the reply batch and empties it (also called by a handler that flushes early).</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    internal async ValueTask SendRepliesAsync()
    {
        if (_replies.Count == 0)
        {
            return;
        }

        try
        {
            await _waits.SendAsync(_replies).ConfigureAwait(false);
            OnRepliesSent();
        }
        catch (SocketException e)
        {
            OnRepliesFailed(e);
        }
        finally
        {
            // Every handling starts from an empty batch: this is the one place that empties it.
            _replies.Clear();
        }
    }
}
