using System.Diagnostics;
using System.Globalization;
using System.Net;

namespace Salvo.Benchmarks;

/// <summary>
/// Compares the two receive I/O models on the Linux backend with the same sender: a dedicated thread
/// blocking in <see cref="DatagramSocket.Receive(ReceiveBatch, TimeSpan)"/> (poll + recvmmsg) against
/// awaiting <see cref="DatagramSocket.ReceiveAsync(ReceiveBatch, CancellationToken)"/> (recvmmsg until
/// EAGAIN, then the runtime's epoll). Throughput: a blocking batched sender on core 0 blasts for a fixed
/// time. Latency: one datagram ping-pong. Runs interleaved and repeated; prints medians.
/// Usage: io-models [seconds-per-point=2] [repetitions=3] [payload=64] [offloads=off|on]
/// </summary>
internal static class IoModelComparison
{
    private static bool s_offloads;

    public static int Run(string[] args)
    {
        var seconds = args.Length > 0 ? double.Parse(args[0], CultureInfo.InvariantCulture) : 2;
        var repetitions = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
        var payload = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 64;
        s_offloads = args.Length > 3 && args[3] == "on";
        var duration = TimeSpan.FromSeconds(seconds);
        var results = new Dictionary<string, List<(double Rate, double Cpu)>> { ["dedicated-thread"] = [], ["async"] = [] };
        var latencies = new Dictionary<string, List<double>> { ["dedicated-thread"] = [], ["async"] = [] };
        for (var r = 0; r < repetitions; r++)
        {
            foreach (var model in results.Keys)
            {
                results[model].Add(Throughput(model == "async", payload, duration));
                latencies[model].Add(PingPongMicroseconds(model == "async", duration));
            }
        }

        Console.WriteLine($"payload {payload} B, GSO/GRO {(s_offloads ? "on" : "off")}, {seconds} s per point, median of {repetitions}");
        Console.WriteLine("| receive model | datagrams/s | receiver CPU % | receiver CPU ns per datagram | round trip p50 (us) |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        foreach (var model in results.Keys)
        {
            var rate = Median(results[model].Select(x => x.Rate));
            var cpu = Median(results[model].Select(x => x.Cpu));
            var rtt = Median(latencies[model]);
            var nanoseconds = Median(results[model].Select(x => x.Cpu / 100 * 1e9 / x.Rate));
            Console.WriteLine(FormattableString.Invariant($"| {model} | {rate:N0} | {cpu:F0} | {nanoseconds:F0} | {rtt:F1} |"));
        }

        return 0;
    }

    private static (double Rate, double CpuPercent) Throughput(bool useAsync, int payload, TimeSpan duration)
    {
        using var receiver = Open();
        using var sender = Open();
        var stop = 0;
        long received = 0;
        var processCpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var senderCpu = TimeSpan.Zero;
        var clock = Stopwatch.StartNew();

        var sendThread = new Thread(() =>
        {
            ThreadPlacement.PinTo(0);
            var start = ThreadPlacement.ThreadCpuTime();
            var batch = new SendBatch(capacity: 64, maxDatagramSize: payload);
            var bytes = new byte[payload];
            while (!batch.IsFull)
            {
                batch.Add(bytes, receiver.LocalAddress);
            }

            while (Volatile.Read(ref stop) == 0)
            {
                sender.Send(batch);
            }

            senderCpu = ThreadPlacement.ThreadCpuTime() - start;
        });

        Thread? receiveThread = null;
        Task? receiveTask = null;
        if (useAsync)
        {
            receiveTask = Task.Run(async () =>
            {
                var batch = new ReceiveBatch(capacity: 64, bufferSize: s_offloads ? ReceiveBatch.DefaultBufferSize : Math.Max(payload, 64));
                try
                {
                    while (true)
                    {
                        received += await receiver.ReceiveAsync(batch).ConfigureAwait(false);
                    }
                }
                catch (ObjectDisposedException)
                {
                }
            });
        }
        else
        {
            receiveThread = new Thread(() =>
            {
                ThreadPlacement.PinTo(1);
                var batch = new ReceiveBatch(capacity: 64, bufferSize: s_offloads ? ReceiveBatch.DefaultBufferSize : Math.Max(payload, 64));
                try
                {
                    while (true)
                    {
                        received += receiver.Receive(batch, Timeout.InfiniteTimeSpan);
                    }
                }
                catch (ObjectDisposedException)
                {
                }
            });
            receiveThread.Start();
        }

        sendThread.Start();
        Thread.Sleep(duration);
        var count = Volatile.Read(ref received);
        var elapsed = clock.Elapsed;
        Volatile.Write(ref stop, 1);
        sendThread.Join();
        var processCpu = Process.GetCurrentProcess().TotalProcessorTime - processCpuBefore;
        receiver.Dispose();
        receiveThread?.Join();
        receiveTask?.Wait();
        // Receiver CPU = the process minus the sender thread (the main thread only sleeps).
        var receiverCpu = (processCpu - senderCpu).TotalSeconds / elapsed.TotalSeconds * 100;
        return (count / elapsed.TotalSeconds, receiverCpu);
    }

    private static double PingPongMicroseconds(bool useAsync, TimeSpan duration)
    {
        using var server = Open();
        using var client = Open();
        var samples = new List<double>(100_000);
        var echo = new Thread(() =>
        {
            var batch = new ReceiveBatch(capacity: 8, bufferSize: 64);
            var reply = new SendBatch(capacity: 8, maxDatagramSize: 64);
            try
            {
                while (true)
                {
                    server.Receive(batch, Timeout.InfiniteTimeSpan);
                    reply.Clear();
                    foreach (var datagram in batch)
                    {
                        reply.Add(datagram.Payload, datagram.Source);
                    }

                    server.Send(reply);
                }
            }
            catch (ObjectDisposedException)
            {
            }
        });
        echo.Start();

        var ping = new SendBatch(capacity: 1, maxDatagramSize: 64);
        ping.Add(new byte[32], server.LocalAddress);
        var pong = new ReceiveBatch(capacity: 1, bufferSize: 64);
        var deadline = Stopwatch.StartNew();
        var runner = Task.Run(async () =>
        {
            while (deadline.Elapsed < duration && samples.Count < 100_000)
            {
                var start = Stopwatch.GetTimestamp();
                client.Send(ping);
                if (useAsync)
                {
                    await client.ReceiveAsync(pong).ConfigureAwait(false);
                }
                else
                {
                    client.Receive(pong, TimeSpan.FromSeconds(1));
                }

                samples.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
            }
        });
        runner.Wait();
        server.Dispose();
        echo.Join();
        return Median(samples);
    }

    private static DatagramSocket Open() => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        ReceiveBufferSize = 4 << 20,
        Gso = s_offloads,
        Gro = s_offloads,
    });

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.OrderBy(v => v).ToArray();
        return sorted.Length == 0 ? 0 : sorted[sorted.Length / 2];
    }
}
