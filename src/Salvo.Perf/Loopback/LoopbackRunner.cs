using System.Diagnostics;
using Salvo.Perf.Measurement;

namespace Salvo.Perf.Loopback;

/// <summary>
/// Runs loopback points: for each repetition, each size, each method in turn (round-robin, so drift
/// during the run hits every method alike), a receiver thread and a sender thread, pinned to two CPUs.
/// </summary>
internal sealed class LoopbackRunner(LoopbackRunOptions options)
{
    /// <summary>Upper bound on datagrams per point, so that no loop depends on the clock alone.</summary>
    public const long MaxDatagramsPerPoint = 2_000_000_000;

    private static readonly TimeSpan QuietAfterSender = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan MaxDrain = TimeSpan.FromSeconds(2);

    private readonly PinFailures _pinFailures = new();

    /// <summary>Why a thread could not be pinned (the first failure), or null when every pin held.</summary>
    public string? PinFailure => _pinFailures.First;

    /// <summary>Called about every 100 ms while a point runs.</summary>
    public event Action<LoopbackProgress>? Progress;

    /// <summary>Called when a point is done.</summary>
    public event Action<LoopbackSample, int, int>? PointDone;

    /// <summary>Runs every point and returns the samples in run order.</summary>
    public IReadOnlyList<LoopbackSample> Run(CancellationToken cancellationToken)
    {
        var samples = new List<LoopbackSample>();
        var total = options.Repetitions * options.PayloadBytes.Count * options.Methods.Count;
        var index = 0;
        for (var repetition = 1; repetition <= options.Repetitions; repetition++)
        {
            foreach (var size in options.PayloadBytes)
            {
                foreach (var method in options.Methods)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    var sample = RunPoint(method, size, repetition, index, total, cancellationToken);
                    samples.Add(sample);
                    PointDone?.Invoke(sample, ++index, total);
                }
            }
        }

        return samples;
    }

    private LoopbackSample RunPoint(ILoopbackMethod method, int size, int repetition, int index, int total, CancellationToken cancellationToken)
    {
        var point = new LoopbackPoint(size, options.SocketBufferBytes, 1, options.Address, options.Backend, options.Connected);
        using var receiver = method.CreateReceiver(point);
        using var sender = method.CreateSender(point, receiver.LocalEndPoint);
        using var stop = new CancellationTokenSource();
        var kernelBefore = UdpSnmp.ReadCounter("RcvbufErrors");

        var begin = Stopwatch.GetTimestamp();
        var warmupEnd = begin + Ticks(options.WarmupSeconds);
        var measureEnd = warmupEnd + Ticks(options.DurationSeconds);
        var receiveMeter = new EndpointMeter(warmupEnd, measureEnd);
        var sendMeter = new EndpointMeter(warmupEnd, measureEnd);

        using var receiverStarted = new ManualResetEventSlim();
        Exception? failure = null;
        var receiverThread = StartThread($"salvo-rx-{method.Name}", options.ReceiverCpu, () =>
        {
            receiverStarted.Set();
            receiver.Run(receiveMeter, stop.Token);
            receiveMeter.Finish();
        }, e => failure ??= e);
        var senderThread = StartThread($"salvo-tx-{method.Name}", options.SenderCpu, () =>
        {
            receiverStarted.Wait(TimeSpan.FromSeconds(5));
            sender.Run(sendMeter, MaxDatagramsPerPoint);
            sendMeter.Finish();
        }, e => failure ??= e);

        try
        {
            var progress = new LoopbackProgress(method.Name, size, repetition, index, total, 0, 0);
            WaitUntil(warmupEnd, progress, receiveMeter, begin, cancellationToken);
            var processStart = ProcessSnapshot.Take();
            WaitUntil(measureEnd, progress, receiveMeter, begin, cancellationToken);
            var processEnd = ProcessSnapshot.Take();

            if (!senderThread.Join(TimeSpan.FromSeconds(options.DurationSeconds + 10)))
            {
                throw new TimeoutException($"The {method.Name} sender did not stop.");
            }

            var drainStart = Stopwatch.GetTimestamp();
            while (Stopwatch.GetElapsedTime(Math.Max(receiveMeter.LastActivity, drainStart)) < QuietAfterSender
                && Stopwatch.GetElapsedTime(drainStart) < MaxDrain)
            {
                Thread.Sleep(10);
            }

            stop.Cancel();
            if (!receiverThread.Join(TimeSpan.FromSeconds(5)))
            {
                throw new TimeoutException($"The {method.Name} receiver did not stop.");
            }

            if (failure is not null)
            {
                throw new InvalidOperationException($"The {method.Name} method failed at {size} bytes: {failure.Message}", failure);
            }

            var kernelAfter = UdpSnmp.ReadCounter("RcvbufErrors");
            return Measure(method, size, repetition, sendMeter, receiveMeter, processStart, processEnd,
                kernelBefore is { } b && kernelAfter is { } a ? a - b : null) with { Backend = receiver.Backend };
        }
        finally
        {
            stop.Cancel();
            receiver.Dispose();
            sender.Dispose();
            senderThread.Join(TimeSpan.FromSeconds(5));
            receiverThread.Join(TimeSpan.FromSeconds(5));
        }
    }

    private static LoopbackSample Measure(
        ILoopbackMethod method, int size, int repetition, EndpointMeter send, EndpointMeter receive,
        ProcessSnapshot processStart, ProcessSnapshot processEnd, long? kernelDrops)
    {
        var rx = Window.Of(receive);
        var tx = Window.Of(send);
        var processSeconds = Stopwatch.GetElapsedTime(processStart.Timestamp, processEnd.Timestamp);
        var allocated = method.IsAsync
            ? (processEnd.AllocatedBytes - processStart.AllocatedBytes) / (double)Math.Max(1, rx.Datagrams)
            : (tx.Allocated / (double)Math.Max(1, tx.Datagrams)) + (rx.Allocated / (double)Math.Max(1, rx.Datagrams));
        var sent = send.Datagrams;
        var received = receive.Datagrams;
        return new LoopbackSample(
            method.Name,
            size,
            repetition,
            rx.Datagrams / rx.Seconds,
            rx.Bytes * 8 / rx.Seconds / 1e9,
            tx.Datagrams / tx.Seconds,
            CpuClock.Percent(tx.Cpu, TimeSpan.FromSeconds(tx.Seconds)),
            // The receive work of the IoUring backend runs on the engine threads too (zero for the other methods).
            CpuClock.Percent(rx.Cpu, TimeSpan.FromSeconds(rx.Seconds)) + CpuClock.Percent(processEnd.RingCpu - processStart.RingCpu, processSeconds),
            CpuClock.Percent(processEnd.Cpu - processStart.Cpu, processSeconds),
            allocated,
            processEnd.GcCount - processStart.GcCount,
            sent,
            received,
            sent == 0 ? 0 : 100.0 * Math.Max(0, sent - received) / sent,
            kernelDrops);
    }

    private void WaitUntil(long timestamp, LoopbackProgress progress, EndpointMeter receive, long begin, CancellationToken cancellationToken)
    {
        while (Stopwatch.GetTimestamp() < timestamp)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var remaining = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), timestamp);
            Thread.Sleep(TimeSpan.FromMilliseconds(Math.Clamp(remaining.TotalMilliseconds, 1, 100)));
            var elapsed = Stopwatch.GetElapsedTime(begin).TotalSeconds;
            Progress?.Invoke(progress with { ElapsedSeconds = elapsed, Received = receive.Datagrams });
        }
    }

    private Thread StartThread(string name, int? cpu, Action body, Action<Exception> onFailure)
    {
        var thread = new Thread(() =>
        {
            try
            {
                _pinFailures.Pin(cpu);
                body();
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                onFailure(e);
            }
        })
        {
            Name = name,
            IsBackground = true,
        };
        thread.Start();
        return thread;
    }

    private static long Ticks(double seconds) => (long)(seconds * Stopwatch.Frequency);

    private readonly record struct Window(long Datagrams, long Bytes, TimeSpan Cpu, long Allocated, double Seconds)
    {
        public static Window Of(EndpointMeter meter)
        {
            var start = meter.Start!.Value;
            var end = meter.End!.Value;
            var seconds = Math.Max(1e-6, Stopwatch.GetElapsedTime(start.Timestamp, end.Timestamp).TotalSeconds);
            return new Window(end.Datagrams - start.Datagrams, end.Bytes - start.Bytes, end.Cpu - start.Cpu,
                end.AllocatedBytes - start.AllocatedBytes, seconds);
        }
    }

    private readonly record struct ProcessSnapshot(long Timestamp, TimeSpan Cpu, long AllocatedBytes, int GcCount, TimeSpan RingCpu)
    {
        public static ProcessSnapshot Take() => new(
            Stopwatch.GetTimestamp(),
            CpuClock.Process(),
            GC.GetTotalAllocatedBytes(precise: true),
            GC.CollectionCount(0) + GC.CollectionCount(1) + GC.CollectionCount(2),
            RingThreadClock.Read());
    }
}

/// <summary>What a loopback run does.</summary>
/// <param name="Methods">Methods, run in this order within each round.</param>
/// <param name="PayloadBytes">Payload sizes.</param>
/// <param name="DurationSeconds">Measured seconds per point.</param>
/// <param name="WarmupSeconds">Unmeasured seconds before each window.</param>
/// <param name="Repetitions">Rounds.</param>
/// <param name="SenderCpu">CPU to pin the sender to, or null.</param>
/// <param name="ReceiverCpu">CPU to pin the receiver to, or null.</param>
/// <param name="SocketBufferBytes">SO_RCVBUF/SO_SNDBUF for every method.</param>
/// <param name="Address">The loopback address both ends bind.</param>
/// <param name="Backend">The backend of the Salvo methods' sockets.</param>
/// <param name="Connected">Whether senders connect to the receiver and send without a destination (--connect).</param>
internal sealed record LoopbackRunOptions(
    IReadOnlyList<ILoopbackMethod> Methods,
    IReadOnlyList<int> PayloadBytes,
    double DurationSeconds,
    double WarmupSeconds,
    int Repetitions,
    int? SenderCpu,
    int? ReceiverCpu,
    int SocketBufferBytes,
    System.Net.IPAddress Address,
    DatagramBackend Backend = DatagramBackend.Auto,
    bool Connected = false);

/// <summary>A point in progress.</summary>
/// <param name="Method">The method running.</param>
/// <param name="PayloadBytes">Its payload size.</param>
/// <param name="Repetition">1-based repetition.</param>
/// <param name="Index">Points done before this one.</param>
/// <param name="Total">Points in the run.</param>
/// <param name="ElapsedSeconds">Seconds since the point began.</param>
/// <param name="Received">Datagrams received so far in this point.</param>
internal sealed record LoopbackProgress(string Method, int PayloadBytes, int Repetition, int Index, int Total, double ElapsedSeconds, long Received);
