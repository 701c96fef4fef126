using System.Globalization;
using System.Net;
using Salvo.Server;

namespace Salvo.Perf.Loopback;

/// <summary>
/// The workers axis: a <see cref="DatagramServer"/> with <see cref="Workers"/> receive workers (one
/// SO_REUSEPORT socket and thread each, batched, GSO/GRO off) counting what arrives, fed by sender threads
/// (by default one per worker within half the cores) that spread their batches over four flows (source ports) per
/// worker so the kernel's flow hash reaches every worker. Named <c>server-wN</c>; <c>salvo loopback --workers 1,2,4,8</c> adds one per count.
/// </summary>
/// <param name="workers">Receive workers.</param>
/// <param name="senders">Sender threads; 0 chooses <see cref="SenderThreads"/> from the workers and the CPUs.</param>
internal sealed class ServerMethod(int workers, int senders = 0) : ILoopbackMethod
{
    public const string Prefix = "server-w";

    private const int FlowsPerWorker = 4;

    public int Workers { get; } = workers;

    public string Name => Prefix + Workers.ToString(CultureInfo.InvariantCulture);

    public string Description =>
        $"DatagramServer with {Workers} worker(s) (SO_REUSEPORT socket and thread each), {SenderThreads} sender thread(s) over {FlowsPerWorker * Workers} flows";

    /// <summary>As asked, or one sender thread per worker within half the cores (the other half receive).</summary>
    public int SenderThreads => senders > 0 ? senders : Math.Clamp(Environment.ProcessorCount / 2, 1, Workers);

    // The workers' threads are the server's own: count allocations process-wide.
    public bool IsAsync => true;

    /// <summary>Parses <c>server-wN</c>; null for any other name.</summary>
    public static ServerMethod? TryParse(string name) =>
        name.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase)
        && int.TryParse(name.AsSpan(Prefix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n is >= 1 and <= Cli.CommonOptions.MaxWorkers
            ? new ServerMethod(n)
            : null;

    public LoopbackReceiver CreateReceiver(LoopbackPoint point)
    {
        var counter = new CountingHandler(Workers);
        var server = new DatagramServer(
            new DatagramServerOptions
            {
                EndPoint = new IPEndPoint(point.ReceiverAddress, 0),
                Backend = point.Backend,
                Workers = Workers,
                MaxDatagramSize = Math.Min(ReceiveBatch.DefaultBufferSize, point.PayloadBytes + 1),
                ReceiveBufferSize = point.SocketBufferBytes,
            },
            counter);
        server.StartAsync().GetAwaiter().GetResult();
        return new ServerReceiver(server, counter);
    }

    public LoopbackSender CreateSender(LoopbackPoint point, IPEndPoint receiver)
    {
        // At least one flow per sender thread.
        var sockets = Enumerable.Range(0, Math.Max(FlowsPerWorker * Workers, SenderThreads)).Select(_ => SalvoMethod.Open(point, offloads: false)).ToArray();
        return new FlowSender(sockets, point, receiver, SenderThreads);
    }

    /// <summary>Counts datagrams and bytes per worker, without sharing a cache line between workers.</summary>
    private sealed class CountingHandler(int workers) : IDatagramHandler
    {
        private const int Stride = 16;
        private readonly long[] _counts = new long[workers * Stride];

        public void Handle(in DatagramContext context)
        {
            long bytes = 0;
            foreach (var datagram in context.Datagrams)
            {
                bytes += datagram.Length;
            }

            var slot = context.WorkerIndex * Stride;
            Volatile.Write(ref _counts[slot], _counts[slot] + context.Datagrams.Count);
            Volatile.Write(ref _counts[slot + 1], _counts[slot + 1] + bytes);
        }

        public (long Datagrams, long Bytes) Total()
        {
            long datagrams = 0;
            long bytes = 0;
            for (var slot = 0; slot < _counts.Length; slot += Stride)
            {
                datagrams += Volatile.Read(ref _counts[slot]);
                bytes += Volatile.Read(ref _counts[slot + 1]);
            }

            return (datagrams, bytes);
        }
    }

    private sealed class ServerReceiver(DatagramServer server, CountingHandler counter) : LoopbackReceiver
    {
        public override IPEndPoint LocalEndPoint => server.LocalEndPoint;

        public override DatagramBackend? Backend => server.Backend;

        public override void Run(EndpointMeter meter, CancellationToken stop)
        {
            long seenDatagrams = 0;
            long seenBytes = 0;
            while (!stop.IsCancellationRequested)
            {
                Thread.Sleep(5);
                var (datagrams, bytes) = counter.Total();
                if (datagrams == seenDatagrams)
                {
                    meter.Observe();
                    continue;
                }

                meter.Count((int)(datagrams - seenDatagrams), bytes - seenBytes);
                (seenDatagrams, seenBytes) = (datagrams, bytes);
            }
        }

        protected override void Dispose(bool disposing) => server.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(10));
    }

    /// <summary>
    /// Sends over the flows from several threads: a single sending core is what limits loopback long before several
    /// workers do. The runner's (pinned) thread sends its share and reports the helpers' counts with its own; the
    /// sender CPU shown is that thread's.
    /// </summary>
    private sealed class FlowSender(DatagramSocket[] sockets, LoopbackPoint point, IPEndPoint target, int threads) : LoopbackSender
    {
        private readonly DatagramAddress _destination = DatagramAddress.FromIPEndPoint(target);
        private long _helperDatagrams;
        private volatile bool _stop;
        private Exception? _helperFailure;

        public override void Run(EndpointMeter meter, long maxDatagrams)
        {
            var share = maxDatagrams / threads;
            var helpers = Enumerable.Range(1, threads - 1).Select(index => new Thread(() => SendAsHelper(index, share))
            {
                IsBackground = true,
                Name = $"salvo-tx-helper-{index}",
            }).ToList();
            helpers.ForEach(h => h.Start());
            try
            {
                // The metered thread takes what does not divide evenly.
                Send(0, share + (maxDatagrams % threads), meter);
            }
            catch
            {
                _stop = true;
                throw;
            }
            finally
            {
                // This thread's share may end first: the helpers finish theirs unless the window ends.
                foreach (var helper in helpers)
                {
                    while (!helper.Join(1))
                    {
                        Fold(meter);
                        meter.Observe();
                        _stop |= meter.IsOver;
                    }
                }

                Fold(meter);
            }

            if (_helperFailure is { } failure)
            {
                throw new InvalidOperationException($"A sender thread failed: {failure.Message}", failure);
            }
        }

        protected override void Dispose(bool disposing)
        {
            foreach (var socket in sockets)
            {
                socket.Dispose();
            }
        }

        private void Fold(EndpointMeter meter)
        {
            if (threads > 1 && Interlocked.Exchange(ref _helperDatagrams, 0) is var helped and > 0)
            {
                meter.Count((int)helped, helped * point.PayloadBytes);
            }
        }

        /// <summary>A helper's failure stops every sender and surfaces on the metered thread, as the runner expects.</summary>
        private void SendAsHelper(int index, long maxDatagrams)
        {
            try
            {
                Send(index, maxDatagrams, null);
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref _helperFailure, e, null);
                _stop = true;
            }
        }

        /// <summary>Sends over flows index, index + threads, ...; the metered thread folds in what the helpers sent.</summary>
        private void Send(int index, long maxDatagrams, EndpointMeter? meter)
        {
            var flows = sockets.Where((_, i) => i % threads == index).ToArray();
            var batch = new SendBatch(SalvoMethod.BatchFor(point.PayloadBytes), point.PayloadBytes);
            long sequence = 0;
            var flow = 0;
            while (sequence < maxDatagrams && !_stop && meter?.IsOver != true)
            {
                sequence = SalvoMethod.Fill(batch, point.PayloadBytes, _destination, sequence, maxDatagrams);
                var sent = flows[flow++ % flows.Length].Send(batch);
                if (meter is null)
                {
                    Interlocked.Add(ref _helperDatagrams, sent);
                    continue;
                }

                meter.Count(sent, (long)sent * point.PayloadBytes);
                Fold(meter);
            }
        }
    }
}
