namespace Salvo.Server;

/// <summary>The worker's waiting strategy: where its one loop blocks (dedicated thread) or suspends (async model).</summary>
internal sealed partial class ServerWorker
{
    private sealed class Waits(ServerWorker worker, bool blocking)
    {
        // How long a blocked receive waits before the loop looks at the stop flag again: the longest a stop
        // waits for an idle Linux worker to notice it.
        private static readonly TimeSpan s_receiveSlice = TimeSpan.FromMilliseconds(100);

        public bool IsBlocking => blocking;

        public ValueTask<int> ReceiveAsync()
        {
            var socket = worker._socket;
            var batch = worker._receiveBatch;
            if (worker._busyPollTicks > 0 && worker.SpinReceive() is var spun and > 0)
            {
                return new(spun);
            }

            if (!blocking)
            {
                return socket.ReceiveAsync(batch, worker._receiveStop);
            }

            if (worker._blockingReceiveWakesOnClose)
            {
                return new(socket.Receive(batch, s_receiveSlice));
            }

            // A blocking receive that a close does not wake (the portable backend's, on a socket several threads share)
            // would hang the stop; waiting on the cancellable asynchronous receive cannot (it allocates only when it waits).
            var pending = socket.ReceiveAsync(batch, worker._receiveStop);
            return new(pending.IsCompleted ? pending.GetAwaiter().GetResult() : pending.AsTask().GetAwaiter().GetResult());
        }

        public ValueTask<int> SendAsync(SendBatch replies) =>
            blocking ? new(worker._socket.Send(replies)) : worker._socket.SendAsync(replies);

        public ValueTask InvokeHandlerAsync(DatagramContext context)
        {
            if (!blocking)
            {
                return worker._handler.InvokeAsync(context);
            }

            worker._handler.Invoke(in context);
            return default;
        }

        public ValueTask ForItemsAsync(DatagramQueue queue)
        {
            if (!blocking)
            {
                return queue.WaitForItemsAsync(worker._drainStop);
            }

            queue.WaitForItems(worker._drainStop);
            return default;
        }

        public ValueTask ForSpaceAsync(DatagramQueue queue)
        {
            if (!blocking)
            {
                return queue.WaitForSpaceAsync(worker._drainStop);
            }

            queue.WaitForSpace(worker._drainStop);
            return default;
        }

        /// <summary>After an unexpected receive error, the policy's pause, so a persistent failure does not spin a core; a stop ends it early.</summary>
        public ValueTask BackOffAsync()
        {
            if (!blocking)
            {
                return new(worker._receiveErrors.BackOffAsync(worker._receiveStop));
            }

            worker._receiveErrors.BackOff(worker._receiveStop);
            return default;
        }
    }
}
