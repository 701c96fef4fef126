using System.Buffers.Binary;
using System.Diagnostics;
using System.Globalization;
using System.Net;

namespace Salvo.Benchmarks;

/// <summary>
/// Many connected UDP sockets served on two threads (<see cref="ManySocketsServer"/>, a child process on its own
/// core), driven from one batched socket: open loop at --rate datagrams/s in total spread over every socket in turn
/// (light traffic on each), or closed loop with --in-flight requests per socket (heavy traffic). Prints one line:
/// requests/s, the server's CPU per request (one datagram in, one out) and the round trip's p50/p99.
/// </summary>
/// <remarks>
/// Usage: many-sockets --backend linuxbatched|iouring --sockets N (--rate PER_SECOND | --in-flight W) [--time S]
/// [--warmup S] [--server-cpu CPU]. The driver itself should run on another core (taskset).
/// </remarks>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
internal static class ManySocketsDriver
{
    private const int PayloadSize = 64;
    private const int MaxSamples = 8_000_000;

    public static int Run(string[] args)
    {
        var options = Parse(args);
        var backend = options.GetValueOrDefault("backend", "linuxbatched");
        var count = Int(options, "sockets", 10_000);
        var rate = Int(options, "rate", 0);
        var inFlight = Int(options, "in-flight", 0);
        var seconds = double.Parse(options.GetValueOrDefault("time", "5"), CultureInfo.InvariantCulture);
        var warmup = double.Parse(options.GetValueOrDefault("warmup", "1"), CultureInfo.InvariantCulture);
        if ((rate > 0) == (inFlight > 0))
        {
            Console.Error.WriteLine("many-sockets: give exactly one of --rate and --in-flight");
            return 2;
        }

        using var client = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
            Backend = DatagramBackend.LinuxBatched,
        });
        using var server = StartServer(backend, count, client.LocalEndPoint.Port, options.GetValueOrDefault("server-cpu", "1"));
        try
        {
            var served = server.StandardOutput.ReadLine() ?? throw new InvalidOperationException("the server ended before it bound");
            var ports = (server.StandardOutput.ReadLine() ?? throw new InvalidOperationException("the server sent no ports"))
                .Split(' ').Skip(1).Select(port => DatagramAddress.Create(IPAddress.Loopback, int.Parse(port, CultureInfo.InvariantCulture)))
                .ToArray();
            var load = new Load(client, ports, inFlight);
            var receiver = new Thread(load.ReceiveLoop) { IsBackground = true, Name = "many-sockets receive" };
            receiver.Start();
            var sender = new Thread(() => load.SendLoop(rate)) { IsBackground = true, Name = "many-sockets send" };
            sender.Start();

            Thread.Sleep(TimeSpan.FromSeconds(warmup));
            var (cpuBefore, servedBefore) = Mark(server);
            load.StartMeasuring();
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
            var (cpuAfter, servedAfter) = Mark(server);
            var answered = load.StopMeasuring();
            load.Stop();
            sender.Join();
            Thread.Sleep(300);
            load.StopReceiving();
            receiver.Join();

            var requests = servedAfter - servedBefore;
            var (p50, p99) = load.Percentiles();
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{served} sockets={count} {(rate > 0 ? $"rate={rate}" : $"in-flight={inFlight}")} " +
                $"rps={answered / seconds:F0} cpu_ns_per_request={(cpuAfter - cpuBefore) * 1000.0 / Math.Max(1, requests):F0} " +
                $"server_cpu_pct={(cpuAfter - cpuBefore) / (seconds * 10_000):F1} p50_us={p50:F1} p99_us={p99:F1} " +
                $"sent={load.Sent} answered={load.Answered} lost={load.Sent - load.Answered}"));
            server.StandardInput.WriteLine("quit");
            server.StandardInput.Flush();
            if (!server.WaitForExit(15_000))
            {
                server.Kill();
            }

            return 0;
        }
        finally
        {
            if (!server.HasExited)
            {
                server.Kill();
            }
        }
    }

    private static Process StartServer(string backend, int count, int peerPort, string cpu)
    {
        var info = new ProcessStartInfo("taskset")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "-c", cpu, Environment.ProcessPath!, typeof(ManySocketsDriver).Assembly.Location,
                     "many-sockets-serve", backend, count.ToString(CultureInfo.InvariantCulture), peerPort.ToString(CultureInfo.InvariantCulture) })
        {
            info.ArgumentList.Add(argument);
        }

        return Process.Start(info) ?? throw new InvalidOperationException("taskset did not start");
    }

    private static (long CpuMicroseconds, long Served) Mark(Process server)
    {
        server.StandardInput.WriteLine("mark");
        server.StandardInput.Flush();
        var parts = (server.StandardOutput.ReadLine() ?? throw new InvalidOperationException("the server ended")).Split(' ');
        return (long.Parse(parts[1], CultureInfo.InvariantCulture), long.Parse(parts[2], CultureInfo.InvariantCulture));
    }

    private static Dictionary<string, string> Parse(string[] args)
    {
        var options = new Dictionary<string, string>();
        for (var i = 0; i + 1 < args.Length; i += 2)
        {
            options[args[i].TrimStart('-')] = args[i + 1];
        }

        return options;
    }

    private static int Int(Dictionary<string, string> options, string name, int fallback) =>
        options.TryGetValue(name, out var value) ? int.Parse(value, CultureInfo.InvariantCulture) : fallback;

    /// <summary>The driver's two threads: one paces the open loop (or primes the closed one), one receives the answers.</summary>
    private sealed class Load(DatagramSocket client, DatagramAddress[] ports, int inFlight)
    {
        private readonly long[] samples = new long[MaxSamples];
        private volatile bool stopSending;
        private volatile bool stopReceiving;
        private volatile bool measuring;
        private long sampleCount;
        private long answeredInWindow;
        private long sent;
        private long answered;

        public long Sent => Interlocked.Read(ref sent);

        public long Answered => Interlocked.Read(ref answered);

        public void StartMeasuring() => measuring = true;

        public long StopMeasuring()
        {
            measuring = false;
            return Interlocked.Read(ref answeredInWindow);
        }

        public void Stop() => stopSending = true;

        public void StopReceiving() => stopReceiving = true;

        public (double P50, double P99) Percentiles()
        {
            var count = (int)Math.Min(sampleCount, MaxSamples);
            if (count == 0)
            {
                return (double.NaN, double.NaN);
            }

            Array.Sort(samples, 0, count);
            double Micro(double q) => samples[Math.Min(count - 1, (int)(q * count))] * 1_000_000.0 / Stopwatch.Frequency;
            return (Micro(0.50), Micro(0.99));
        }

        public void SendLoop(int rate)
        {
            var batch = new SendBatch(64, PayloadSize);
            Span<byte> payload = stackalloc byte[PayloadSize];
            if (rate == 0)
            {
                // Closed loop: prime every socket with its window; the receive loop answers each reply with a request.
                for (var round = 0; round < inFlight; round++)
                {
                    for (var i = 0; i < ports.Length; i++)
                    {
                        Add(batch, payload, i);
                        if (batch.IsFull)
                        {
                            Flush(batch);
                        }
                    }
                }

                Flush(batch);
                return;
            }

            var start = Stopwatch.GetTimestamp();
            var next = 0;
            while (!stopSending)
            {
                var due = (long)(rate * Stopwatch.GetElapsedTime(start).TotalSeconds) - Interlocked.Read(ref sent);
                if (due <= 0)
                {
                    Thread.Sleep(1);
                    continue;
                }

                for (var i = 0; i < Math.Min(due, 64); i++)
                {
                    Add(batch, payload, next);
                    next = next + 1 == ports.Length ? 0 : next + 1;
                }

                Flush(batch);
            }
        }

        public void ReceiveLoop()
        {
            var batch = new ReceiveBatch(64, 2048);
            var requests = new SendBatch(64, PayloadSize);
            Span<byte> payload = stackalloc byte[PayloadSize];
            while (!stopReceiving)
            {
                var count = client.Receive(batch, TimeSpan.FromMilliseconds(50));
                var now = Stopwatch.GetTimestamp();
                foreach (var datagram in batch)
                {
                    var rtt = now - BinaryPrimitives.ReadInt64LittleEndian(datagram.Payload);
                    if (measuring)
                    {
                        var slot = Interlocked.Increment(ref sampleCount) - 1;
                        if (slot < MaxSamples)
                        {
                            samples[slot] = rtt;
                        }

                        Interlocked.Increment(ref answeredInWindow);
                    }

                    if (inFlight > 0 && !stopSending)
                    {
                        Add(requests, payload, BinaryPrimitives.ReadInt32LittleEndian(datagram.Payload[8..]));
                    }
                }

                Interlocked.Add(ref answered, count);
                Flush(requests);
            }
        }

        private void Add(SendBatch batch, Span<byte> payload, int index)
        {
            BinaryPrimitives.WriteInt64LittleEndian(payload, Stopwatch.GetTimestamp());
            BinaryPrimitives.WriteInt32LittleEndian(payload[8..], index);
            batch.Add(payload, ports[index]);
        }

        private void Flush(SendBatch batch)
        {
            if (batch.Count > 0)
            {
                Interlocked.Add(ref sent, client.Send(batch));
                batch.Clear();
            }
        }
    }
}
