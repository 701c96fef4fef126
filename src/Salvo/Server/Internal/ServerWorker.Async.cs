using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace Salvo.Server;

/// <summary>The asynchronous loops: awaited batched receives on the thread pool.</summary>
internal sealed partial class ServerWorker
{
    private async Task RunReceiveAsync()
    {
        try
        {
            while (!_receiveStop.IsCancellationRequested)
            {
                int received;
                try
                {
                    received = _busyPollTicks > 0 ? SpinReceive() : 0;
                    if (received == 0)
                    {
                        received = await _socket.ReceiveAsync(_receiveBatch, _receiveStop).ConfigureAwait(false);
                    }
                }
                catch (SocketException e)
                {
                    OnReceiveError(e);
                    await Task.Delay(ErrorBackoffMilliseconds, _receiveStop).ConfigureAwait(false);
                    continue;
                }

                if (!Accept(_receiveBatch))
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
            // The socket closed or the stop cancelled the receive: the loop ends here.
        }
        finally
        {
            _receiverDone = true;
            _queue?.WakeConsumer();
        }
    }

    private async Task RunProcessAsync()
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

                await queue.WaitForItemsAsync(_drainStop).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or OperationCanceledException)
        {
            // The stop gave up draining or closed the socket.
        }
    }

    // Pooled: a wait for room or an asynchronous handler suspends these once per batch; a pooled state
    // machine keeps that from allocating.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask EnqueueAsync(ReceiveBatch batch)
    {
        var outcome = default(EnqueueOutcome);
        var next = 0;
        try
        {
            while ((next = _queue!.Enqueue(batch, next, _policy, ref outcome)) < batch.Count)
            {
                await _queue.WaitForSpaceAsync(_drainStop).ConfigureAwait(false);
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
            await _handler.InvokeAsync(context).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            OnHandlerError(e);
        }

        if (_replies.Count == 0)
        {
            return;
        }

        try
        {
            OnRepliesSent(await _socket.SendAsync(_replies).ConfigureAwait(false));
        }
        catch (SocketException e)
        {
            OnRepliesFailed(e);
        }
    }
}
