using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using Salvo.Perf.Measurement;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>
/// Opens <see cref="ConnectionsSettings.Count"/> framed TCP connections to an in-process echo
/// <see cref="StreamServer"/> on loopback, measures memory with all of them idle, then lets
/// <see cref="ConnectionsSettings.Active"/> of them send randomly sized messages to random connections at
/// <see cref="ConnectionsSettings.RatePerSecond"/> in total, and measures the echo rate and round-trip latency.
/// Client source addresses rotate over 127.0.0.2, 127.0.0.3, ... so the ephemeral port range (about 28,000
/// ports per source address) does not cap the count.
/// </summary>
internal static class ConnectionsRunner
{
    // Connects in flight at once: enough to fill the accept backlog, few enough not to time out.
    private const int ConnectConcurrency = 256;
    private const int TimestampBytes = 8;

    public static ConnectionsResult Run(ConnectionsSettings settings, Action<string> progress, CancellationToken cancellationToken)
    {
        var descriptorLimit = DescriptorLimit.Ensure((2L * settings.Count) + 1_024);
        var baseline = MemorySnapshot.Take();
        var framer = settings.Framing == "stx" ? MessageFramer.Delimited : MessageFramer.LengthPrefix;
        var closedByReason = new ConcurrentDictionary<string, long>();
        var serverOptions = new StreamServerOptions
        {
            EndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Framer = framer,
            IdleTimeout = TimeSpan.FromHours(1),
            Backlog = 4_096,
        };
        var echo = StreamHandler.Create(
            static (connection, message) =>
            {
                Echo(connection, message);
                return ValueTask.CompletedTask;
            },
            (_, reason) => closedByReason.AddOrUpdate(reason.ToString(), 1, (_, n) => n + 1));

        var latency = new LatencyHistogram();
        long echoed = 0;
        var recording = 0;
        var client = new StreamHandlerWithLatency(latency, () => Volatile.Read(ref recording) != 0, () => Interlocked.Increment(ref echoed));

        var server = new StreamServer(serverOptions, echo);
        server.Start();
        var clients = new StreamClient(new StreamClientOptions { Framer = framer, IdleTimeout = TimeSpan.FromHours(1) }, client);
        var connections = new StreamConnection?[settings.Count];
        try
        {
            var clock = Stopwatch.StartNew();
            var failures = ConnectAll(clients, server.LocalEndPoint!, connections, settings.SourceAddresses, progress, cancellationToken);
            var connectSeconds = clock.Elapsed.TotalSeconds;
            var connected = settings.Count - failures;
            progress($"{connected:N0} connections open in {connectSeconds:F1} s ({failures:N0} failed); measuring idle memory");
            var idle = MemorySnapshot.Take();

            long sent = 0;
            long refused = 0;
            double perSecond = 0;
            if (settings.RatePerSecond > 0 && settings.DurationSeconds > 0 && connected > 0)
            {
                Volatile.Write(ref recording, 1);
                var traffic = Stopwatch.StartNew();
                (sent, refused) = Traffic(connections, settings, cancellationToken);
                Volatile.Write(ref recording, 0);
                perSecond = Interlocked.Read(ref echoed) / traffic.Elapsed.TotalSeconds;
                WaitForQuiet(() => Interlocked.Read(ref echoed), TimeSpan.FromSeconds(5));
            }

            var after = MemorySnapshot.Take();
            var rented = server.BufferPool.RentedBlocks + clients.BufferPool.RentedBlocks;
            return new ConnectionsResult(
                connected,
                failures,
                connectSeconds,
                descriptorLimit,
                sent,
                Interlocked.Read(ref echoed),
                perSecond,
                refused,
                latency.Summarize(),
                baseline,
                idle,
                after,
                connected == 0 ? 0 : (double)(idle.ManagedBytes - baseline.ManagedBytes) / connected,
                connected == 0 ? 0 : (double)(idle.WorkingSetBytes - baseline.WorkingSetBytes) / connected,
                server.BufferPool.PinnedBytes + clients.BufferPool.PinnedBytes,
                rented,
                new Dictionary<string, long>(closedByReason));
        }
        finally
        {
            progress("closing");
            clients.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(60));
            server.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(60));
        }
    }

    private static void Echo(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        if (message.IsSingleSegment)
        {
            connection.TrySend(message.FirstSpan);
            return;
        }

        var copy = ArrayPool<byte>.Shared.Rent((int)message.Length);
        message.CopyTo(copy);
        connection.TrySend(copy.AsSpan(0, (int)message.Length));
        ArrayPool<byte>.Shared.Return(copy);
    }

    private static int ConnectAll(StreamClient clients, IPEndPoint server, StreamConnection?[] connections, int sources, Action<string> progress, CancellationToken cancellationToken)
    {
        var failures = 0;
        var next = -1;
        var workers = Enumerable.Range(0, ConnectConcurrency).Select(async _ =>
        {
            while (true)
            {
                var i = Interlocked.Increment(ref next);
                if (i >= connections.Length || cancellationToken.IsCancellationRequested)
                {
                    return;
                }

                var source = new IPEndPoint(new IPAddress([127, 0, 0, (byte)(2 + (i % sources))]), 0);
                try
                {
                    connections[i] = await clients.ConnectAsync(server, source, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception e) when (e is System.Net.Sockets.SocketException or TimeoutException or OperationCanceledException or IOException)
                {
                    Interlocked.Increment(ref failures);
                }

                if (i % 10_000 == 9_999)
                {
                    progress($"{i + 1:N0} connected");
                }
            }
        }).ToArray();
        Task.WaitAll(workers, cancellationToken);
        return failures;
    }

    /// <summary>One sender per core, each pacing its share of the rate over its slice of the active connections.</summary>
    private static (long Sent, long Refused) Traffic(StreamConnection?[] connections, ConnectionsSettings settings, CancellationToken cancellationToken)
    {
        var active = connections.Take(settings.Active).Where(c => c is not null).Cast<StreamConnection>().ToArray();
        var senders = Math.Max(1, Math.Min(Environment.ProcessorCount, active.Length));
        long sent = 0;
        long refused = 0;
        var threads = Enumerable.Range(0, senders).Select(index => new Thread(() =>
        {
            var slice = active.Where((_, i) => i % senders == index).ToArray();
            var random = new Random(index);
            var rate = settings.RatePerSecond / senders;
            var buffer = new byte[settings.MaxMessageBytes];
            var clock = Stopwatch.StartNew();
            long mine = 0;
            long myRefused = 0;
            while (clock.Elapsed.TotalSeconds < settings.DurationSeconds && !cancellationToken.IsCancellationRequested)
            {
                var due = (long)(clock.Elapsed.TotalSeconds * rate) - mine - myRefused;
                if (due <= 0)
                {
                    Thread.Sleep(1);
                    continue;
                }

                for (var k = 0; k < due; k++)
                {
                    var length = random.Next(settings.MinMessageBytes, settings.MaxMessageBytes + 1);
                    BinaryPrimitives.WriteInt64LittleEndian(buffer, Stopwatch.GetTimestamp());
                    if (slice[random.Next(slice.Length)].TrySend(buffer.AsSpan(0, length)))
                    {
                        mine++;
                    }
                    else
                    {
                        myRefused++;
                    }
                }
            }

            Interlocked.Add(ref sent, mine);
            Interlocked.Add(ref refused, myRefused);
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        return (sent, refused);
    }

    private static void WaitForQuiet(Func<long> counter, TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        var last = counter();
        while (clock.Elapsed < limit)
        {
            Thread.Sleep(100);
            var now = counter();
            if (now == last)
            {
                return;
            }

            last = now;
        }
    }

    /// <summary>The client side: records the round trip of each echoed message from the timestamp it carries.</summary>
    private sealed class StreamHandlerWithLatency(LatencyHistogram histogram, Func<bool> isRecording, Action onEcho) : IStreamHandler
    {
        private readonly Lock _lock = new();

        public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
        {
            if (message.Length >= TimestampBytes && isRecording())
            {
                Span<byte> stamp = stackalloc byte[TimestampBytes];
                message.Slice(0, TimestampBytes).CopyTo(stamp);
                var elapsed = Stopwatch.GetElapsedTime(BinaryPrimitives.ReadInt64LittleEndian(stamp));
                lock (_lock)
                {
                    histogram.RecordNanoseconds((long)(elapsed.TotalMilliseconds * 1_000_000));
                }

                onEcho();
            }

            return ValueTask.CompletedTask;
        }
    }
}
