using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Salvo.Perf.Measurement;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>
/// One client process of <c>salvo connections</c>: opens its share of the connections from one source
/// address, waits for <c>go</c>, sends randomly sized messages (each starting with its send time) to random
/// connections at its share of the rate, and reports the echoes and their round-trip latency.
/// </summary>
internal static class ClientShard
{
    // Connects in flight at once per client process: enough to keep the accept queues busy, few enough that
    // several client processes on two cores do not time out.
    private const int ConnectConcurrency = 64;
    private const int TimestampBytes = 8;

    public static async Task<int> RunAsync(ClientShardSettings settings, IMessageFramer framer, TextReader commands, TextWriter replies)
    {
        DescriptorLimit.Ensure(settings.Count + 1_024L);
        return settings.Client == LoadClientKind.Epoll
            ? await RunEpollAsync(settings, framer, commands, replies).ConfigureAwait(false)
            : await RunStreamClientAsync(settings, framer, commands, replies).ConfigureAwait(false);
    }

    private static async Task<int> RunStreamClientAsync(ClientShardSettings settings, IMessageFramer framer, TextReader commands, TextWriter replies)
    {
        var latency = new LatencyHistogram();
        var recorder = new EchoRecorder(latency);
        await using var client = new StreamClient(new StreamClientOptions { Framer = framer, IdleTimeout = TimeSpan.FromHours(1) }, recorder);
        var connections = new StreamConnection?[settings.Count];
        var clock = Stopwatch.StartNew();
        var failures = await ConnectAllAsync(client, new IPEndPoint(settings.Server, settings.Port), settings.Source, connections).ConfigureAwait(false);
        var connected = new ClientShardConnected(settings.Count - failures, failures, clock.Elapsed.TotalSeconds);
        await Reply(replies, ShardProtocol.Connected, JsonSerializer.Serialize(connected, ShardJson.Default.ClientShardConnected)).ConfigureAwait(false);

        await OnEachGoAsync(commands, replies, () =>
        {
            recorder.IsRecording = true;
            var traffic = Stopwatch.StartNew();
            var cpu = CpuClock.Process();
            var open = client.ConnectionCount;
            var (sent, refused) = Traffic(connections, settings);
            var seconds = traffic.Elapsed.TotalSeconds;
            var inWindow = recorder.Echoed;
            SpinWait.SpinUntil(() => recorder.Echoed >= sent || client.ConnectionCount < open, TimeSpan.FromSeconds(settings.SettleSeconds));
            recorder.IsRecording = false;
            return new ClientShardResult(sent, recorder.Echoed, inWindow, refused, open - client.ConnectionCount, 0, seconds,
                recorder.Summarize(), (CpuClock.Process() - cpu).TotalSeconds);
        }).ConfigureAwait(false);
        return 0;
    }

    private static async Task<int> RunEpollAsync(ClientShardSettings settings, IMessageFramer framer, TextReader commands, TextWriter replies)
    {
        var clock = Stopwatch.StartNew();
        using var client = EpollLoadClient.Connect(new IPEndPoint(settings.Server, settings.Port), settings.Source, settings.Count);
        var connected = new ClientShardConnected(settings.Count - client.Failures, client.Failures, clock.Elapsed.TotalSeconds);
        await Reply(replies, ShardProtocol.Connected, JsonSerializer.Serialize(connected, ShardJson.Default.ClientShardConnected)).ConfigureAwait(false);

        await OnEachGoAsync(commands, replies, () =>
        {
            var cpu = CpuClock.Process();
            var outcome = client.Run(settings, framer);
            return new ClientShardResult(outcome.Sent, outcome.Echoed, outcome.EchoedInWindow, outcome.Refused, outcome.Closed, outcome.Malformed, outcome.Seconds,
                outcome.Latency.Summarize(), (CpuClock.Process() - cpu).TotalSeconds);
        }).ConfigureAwait(false);
        return 0;
    }

    /// <summary>Runs <paramref name="traffic"/> for each <c>go</c> and replies with its result, until <c>quit</c> or end of input.</summary>
    private static async Task OnEachGoAsync(TextReader commands, TextWriter replies, Func<ClientShardResult> traffic)
    {
        while (await commands.ReadLineAsync().ConfigureAwait(false) is { } command && command != ShardProtocol.Quit)
        {
            if (command == ShardProtocol.Go)
            {
                var result = traffic();
                await Reply(replies, ShardProtocol.Result, JsonSerializer.Serialize(result, ShardJson.Default.ClientShardResult)).ConfigureAwait(false);
            }
        }
    }

    private static async Task Reply(TextWriter replies, string keyword, string json)
    {
        await replies.WriteLineAsync($"{keyword} {json}").ConfigureAwait(false);
        await replies.FlushAsync().ConfigureAwait(false);
    }

    private static async Task<int> ConnectAllAsync(StreamClient client, IPEndPoint server, IPAddress source, StreamConnection?[] connections)
    {
        var failures = 0;
        var next = -1;
        var workers = Enumerable.Range(0, ConnectConcurrency).Select(async _ =>
        {
            while (Interlocked.Increment(ref next) is var i && i < connections.Length)
            {
                try
                {
                    connections[i] = await client.ConnectAsync(server, new IPEndPoint(source, 0)).ConfigureAwait(false);
                }
                catch (Exception e) when (e is System.Net.Sockets.SocketException or TimeoutException or IOException)
                {
                    Interlocked.Increment(ref failures);
                }
            }
        });
        await Task.WhenAll(workers).ConfigureAwait(false);
        return failures;
    }

    /// <summary>One sender per core, each pacing its share of the rate over its slice of the active connections.</summary>
    private static (long Sent, long Refused) Traffic(StreamConnection?[] connections, ClientShardSettings settings)
    {
        var active = connections.Take(settings.Active).OfType<StreamConnection>().ToArray();
        if (active.Length == 0 || settings.RatePerSecond <= 0)
        {
            return (0, 0);
        }

        var senders = Math.Min(Environment.ProcessorCount, active.Length);
        long sent = 0;
        long refused = 0;
        var threads = Enumerable.Range(0, senders).Select(index => new Thread(() =>
        {
            var slice = active.Where((_, i) => i % senders == index).ToArray();
            var random = new Random(index);
            var rate = settings.RatePerSecond / senders;
            var buffers = Enumerable.Range(0, settings.Batch).Select(_ => new byte[settings.MaxMessageBytes]).ToArray();
            var batch = new ReadOnlyMemory<byte>[settings.Batch];
            var clock = Stopwatch.StartNew();
            long mine = 0;
            long myRefused = 0;
            while (clock.Elapsed.TotalSeconds < settings.DurationSeconds)
            {
                var due = (long)(clock.Elapsed.TotalSeconds * rate) - mine - myRefused;
                if (due <= 0)
                {
                    Thread.Sleep(1);
                    continue;
                }

                while (due > 0)
                {
                    var count = (int)Math.Min(due, settings.Batch);
                    for (var k = 0; k < count; k++)
                    {
                        var length = random.Next(settings.MinMessageBytes, settings.MaxMessageBytes + 1);
                        BinaryPrimitives.WriteInt64LittleEndian(buffers[k], Stopwatch.GetTimestamp());
                        batch[k] = buffers[k].AsMemory(0, length);
                    }

                    if (slice[random.Next(slice.Length)].TrySendBatch(batch.AsSpan(0, count)))
                    {
                        mine += count;
                    }
                    else
                    {
                        myRefused += count;
                    }

                    due -= count;
                }
            }

            Interlocked.Add(ref sent, mine);
            Interlocked.Add(ref refused, myRefused);
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        return (sent, refused);
    }

    /// <summary>Records the round trip of each echoed message from the send time it carries.</summary>
    private sealed class EchoRecorder(LatencyHistogram histogram) : IStreamHandler
    {
        private readonly Lock _lock = new();
        private long _echoed;

        public bool IsRecording { get; set; }

        public long Echoed => Interlocked.Read(ref _echoed);

        public LatencySummary Summarize()
        {
            lock (_lock)
            {
                return histogram.Summarize();
            }
        }

        public ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
        {
            if (IsRecording && message.Length >= TimestampBytes)
            {
                Span<byte> stamp = stackalloc byte[TimestampBytes];
                message.Slice(0, TimestampBytes).CopyTo(stamp);
                var nanoseconds = (long)(Stopwatch.GetElapsedTime(BinaryPrimitives.ReadInt64LittleEndian(stamp)).TotalMicroseconds * 1_000);
                lock (_lock)
                {
                    histogram.RecordNanoseconds(nanoseconds);
                }

                Interlocked.Increment(ref _echoed);
            }

            return ValueTask.CompletedTask;
        }
    }
}

/// <summary>What one client shard does.</summary>
internal sealed record ClientShardSettings(
    int Port,
    IPAddress Source,
    int Count,
    int Active,
    double RatePerSecond,
    double DurationSeconds,
    int MinMessageBytes,
    int MaxMessageBytes,
    LoadClientKind Client,
    int Batch)
{
    /// <summary>
    /// After the send window, how long to go on receiving (sending nothing new) until every message sent has come
    /// back, or a connection closes. Rates count only the window either way; tests that must see every echo set it.
    /// </summary>
    public double SettleSeconds { get; init; }

    /// <summary>The servers' loopback address (127.0.0.1 or ::1), of the same family as <see cref="Source"/>.</summary>
    public IPAddress Server { get; init; } = IPAddress.Loopback;
}
