using System.Net.Sockets;

namespace Salvo.Server;

/// <summary>The dedicated-thread loops: blocking batched receives, no thread-pool hops.</summary>
internal sealed partial class ServerWorker
{
    private void RunReceiveThread()
    {
        try
        {
            while (!_receiveStop.IsCancellationRequested)
            {
                int received;
                try
                {
                    received = ReceiveBlocking();
                }
                catch (SocketException e)
                {
                    OnReceiveError(e);
                    Thread.Sleep(ErrorBackoffMilliseconds);
                    continue;
                }

                if (received == 0 || !Accept(_receiveBatch))
                {
                    continue;
                }

                if (_queue is null)
                {
                    Handle(_receiveBatch);
                }
                else
                {
                    EnqueueBlocking(_receiveBatch);
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

    private void RunProcessThread()
    {
        var queue = _queue!;
        var batch = _processBatch!;
        try
        {
            while (!_drainStop.IsCancellationRequested)
            {
                if (queue.Dequeue(batch) > 0)
                {
                    Handle(batch);
                    continue;
                }

                if (_receiverDone && queue.Count == 0)
                {
                    break;
                }

                queue.WaitForItems(_drainStop);
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or OperationCanceledException)
        {
            // The stop gave up draining or closed the socket.
        }
    }

    private int ReceiveBlocking()
    {
        if (_blockingReceiveWakesOnClose)
        {
            if (_busyPollTicks > 0 && SpinReceive() is var spun and > 0)
            {
                return spun;
            }

            return _socket.Receive(_receiveBatch, s_receiveSlice);
        }

        // A blocking receive that a close does not wake (the portable backend's, on a socket several threads share)
        // would hang the stop; waiting on the cancellable asynchronous receive cannot (it allocates only when it waits).
        var pending = _socket.ReceiveAsync(_receiveBatch, _receiveStop);
        return pending.IsCompleted ? pending.GetAwaiter().GetResult() : pending.AsTask().GetAwaiter().GetResult();
    }

    private void EnqueueBlocking(ReceiveBatch batch)
    {
        var outcome = default(EnqueueOutcome);
        var next = 0;
        try
        {
            while ((next = _queue!.Enqueue(batch, next, _policy, ref outcome)) < batch.Count)
            {
                _queue.WaitForSpace(_drainStop);
            }
        }
        catch (OperationCanceledException)
        {
            outcome.Closed += batch.Count - next;
        }

        RecordEnqueue(outcome);
    }

    private void Handle(ReceiveBatch batch)
    {
        var context = BeginHandle(batch);
        try
        {
            _handler.Invoke(in context);
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
            OnRepliesSent(_socket.Send(_replies));
        }
        catch (SocketException e)
        {
            OnRepliesFailed(e);
        }
    }
}
