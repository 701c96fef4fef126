using System.Net;
using System.Net.Sockets;
using Salvo.Perf.Measurement;
using Salvo.Streams;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Connections;

/// <summary>
/// The lean load generator of <c>salvo connections</c> (Linux): blocking connects, then each socket made
/// non-blocking and driven with plain <c>send</c>/<c>recv</c> from <see cref="EpollLoadLoop"/> threads, never
/// through the runtime's socket engine. The library's own client costs about 16 us of CPU per message on this
/// project's two-vCPU machine, more than the server it loads; this one costs a few, so the figure measures the
/// server.
/// </summary>
internal sealed class EpollLoadClient : IDisposable
{
    // include/uapi/linux/in.h: pick the port at connect time, per destination (see StreamClient).
    private const int IpBindAddressNoPort = 24;

    // Blocking connects in flight at once; a connect waits at most ConnectTimeout (SO_SNDTIMEO bounds connect(2)).
    private const int ConnectThreads = 16;
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(10);

    private readonly Socket?[] _sockets;

    private EpollLoadClient(Socket?[] sockets, int failures)
    {
        _sockets = sockets;
        Failures = failures;
    }

    /// <summary>Connections that failed to open.</summary>
    public int Failures { get; }

    /// <summary>Whether this machine can run it: Linux on x86-64 or arm64 (the two <c>epoll_event</c> layouts known).</summary>
    public static bool IsSupported =>
        HostOs.IsLinuxOnX64OrArm64;

    /// <summary>Opens <paramref name="count"/> connections to <paramref name="server"/> from <paramref name="source"/>.</summary>
    public static EpollLoadClient Connect(IPEndPoint server, IPAddress source, int count)
    {
        var sockets = new Socket?[count];
        var failures = 0;
        var next = -1;
        var threads = Enumerable.Range(0, Math.Min(ConnectThreads, Math.Max(1, count))).Select(_ => new Thread(() =>
        {
            while (Interlocked.Increment(ref next) is var i && i < count)
            {
                sockets[i] = TryConnect(server, source);
                if (sockets[i] is null)
                {
                    Interlocked.Increment(ref failures);
                }
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
        return new EpollLoadClient(sockets, failures);
    }

    /// <summary>
    /// Sends from the first <see cref="ClientShardSettings.Active"/> connections for the settings' duration, over one
    /// <see cref="EpollLoadLoop"/> per core, and sums what the loops saw.
    /// </summary>
    public LoadOutcome Run(ClientShardSettings settings, IMessageFramer framer)
    {
        var fds = _sockets.Take(settings.Active).OfType<Socket>().Select(s => (int)s.Handle).ToArray();
        if (fds.Length == 0 || settings.RatePerSecond <= 0)
        {
            return new LoadOutcome(0, 0, 0, 0, 0, 0, 0, new LatencyHistogram());
        }

        var threads = Math.Min(Environment.ProcessorCount, fds.Length);
        var loops = Enumerable.Range(0, threads)
            .Select(t => new EpollLoadLoop(fds.Where((_, i) => i % threads == t).ToArray(), framer, settings.MaxMessageBytes, settings.Batch))
            .ToList();
        try
        {
            var running = loops.Select((loop, t) => new Thread(() =>
                loop.Run(settings.RatePerSecond / threads, settings.DurationSeconds, settings.MinMessageBytes, settings.MaxMessageBytes, seed: t, settings.SettleSeconds))).ToList();
            running.ForEach(t => t.Start());
            running.ForEach(t => t.Join());
            var latency = new LatencyHistogram();
            loops.ForEach(l => latency.Add(l.Latency));
            return new LoadOutcome(
                loops.Sum(l => l.Sent), loops.Sum(l => l.Echoed), loops.Sum(l => l.EchoedInWindow), loops.Sum(l => l.Refused), loops.Sum(l => l.Closed), loops.Sum(l => l.Malformed),
                loops.Max(l => l.Seconds), latency);
        }
        finally
        {
            loops.ForEach(l => l.Dispose());
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        foreach (var socket in _sockets)
        {
            socket?.Dispose();
        }
    }

    private static Socket? TryConnect(IPEndPoint server, IPAddress source)
    {
        var socket = new Socket(server.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.NoDelay = true;
            socket.SendTimeout = (int)ConnectTimeout.TotalMilliseconds;
            if (server.AddressFamily == AddressFamily.InterNetwork)
            {
                socket.SetRawSocketOption((int)SocketOptionLevel.IP, IpBindAddressNoPort, BitConverter.GetBytes(1));
            }

            socket.Bind(new IPEndPoint(source, 0));
            socket.Connect(server);
            socket.Blocking = false;
            return socket;
        }
        catch (SocketException)
        {
            socket.Dispose();
            return null;
        }
    }
}

/// <summary>What the load loops of one client process sent and saw, over <paramref name="Seconds"/> (the longest loop's window, set-up excluded).</summary>
internal sealed record LoadOutcome(long Sent, long Echoed, long EchoedInWindow, long Refused, long Closed, long Malformed, double Seconds, LatencyHistogram Latency);
