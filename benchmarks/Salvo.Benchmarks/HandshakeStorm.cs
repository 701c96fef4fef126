using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Benchmarks;

/// <summary>
/// A storm of new handshakes at an engine with many peers, engine-side and without sockets: N initiators (peers of the
/// engine, each sending from its configured endpoint) send their first initiation within one second; past the engine's
/// handshake budget it is under load and answers with cookie replies, which the initiators answer with the same
/// initiation carrying MAC2. Meanwhile a thread moves data both ways between the engine and one established peer; its
/// rate during the storm is compared with its rate in the seconds before and after. The initiators' own Diffie-Hellman work is
/// done before the storm (their initiations) and after it (taking the responses and confirming each session with a
/// keepalive), so the storm's time is the responder's.
/// Usage: handshake-storm [peers=1000000] [initiators=10000] [runs=3]
/// </summary>
internal static class HandshakeStorm
{
    private const int DataBatch = 64;

    public static int Run(string[] args)
    {
        var peers = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 1_000_000;
        var initiators = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 10_000;
        var runs = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 3;
        if (initiators > 65_536 || peers < initiators + 1)
        {
            Console.Error.WriteLine("handshake-storm: need initiators <= 65,536 and peers > initiators");
            return 2;
        }

        var responderKey = WireGuardKey.GeneratePrivateKey();
        var parse = Stopwatch.StartNew();
        var others = WireGuardConfigParser.Parse(ManyPeers.Text(responderKey, peers - initiators - 1)).Peers;
        Console.WriteLine(FormattableString.Invariant($"{peers:N0} peers ({others.Count:N0} idle, {initiators:N0} initiators, 1 established), configuration in {parse.Elapsed.TotalSeconds:F1} s"));
        var initiatorKeys = Enumerable.Range(0, initiators).Select(_ => WireGuardKey.GeneratePrivateKey()).ToArray();

        var results = new List<Result>();
        for (var run = 0; run < runs; run++)
        {
            var result = RunOnce(responderKey, others, initiatorKeys);
            results.Add(result);
            Console.WriteLine(FormattableString.Invariant(
                $"run {run + 1}: completed {result.Completed:N0} / {initiators:N0}, last response {result.LastResponse.TotalMilliseconds:F0} ms after the first initiation, {result.CpuPerHandshake.TotalMicroseconds:F0} us of the storm thread's CPU a handshake, cookie replies {result.Cookies:N0}, data during {result.DataDuring:N0} pkt/s vs before and after {result.DataBefore:N0} pkt/s (x{result.DataDuring / result.DataBefore:F2}){result.Refusals}"));
            GC.Collect();
        }

        Console.WriteLine(FormattableString.Invariant(
            $"median of {runs}: completed {Median(results.Select(r => (double)r.Completed)):F0} / {initiators:N0}, last response {Median(results.Select(r => r.LastResponse.TotalMilliseconds)):F0} ms, {Median(results.Select(r => r.CpuPerHandshake.TotalMicroseconds)):F0} us CPU a handshake, cookie replies {Median(results.Select(r => (double)r.Cookies)):F0}, established peer's rate x{Median(results.Select(r => r.DataDuring / r.DataBefore)):F2}"));
        return 0;
    }

    private static Result RunOnce(WireGuardKey responderKey, IReadOnlyList<PeerConfiguration> others, WireGuardKey[] initiatorKeys)
    {
        var time = TimeProvider.System;
        var establishedKey = WireGuardKey.GeneratePrivateKey();
        var establishedAddress = IPAddress.Parse("10.255.255.254");
        var establishedSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 2));
        var responderSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 1));
        var stormPeers = initiatorKeys.Select((key, i) => new PeerConfiguration
        {
            PublicKey = key.DerivePublicKey(),
            AllowedIps = [new IPPrefix(new IPAddress([100, (byte)(64 + (i >> 16)), (byte)(i >> 8), (byte)i]), 32)],
            Endpoint = SourceOf(i),
            TcpFallback = Tunnel.Paths.TcpFallbackMode.Off,
        });
        var establishedPeer = new PeerConfiguration
        {
            PublicKey = establishedKey.DerivePublicKey(),
            AllowedIps = [new IPPrefix(establishedAddress, 32)],
            Endpoint = new IPEndPoint(IPAddress.Loopback, 2),
            TcpFallback = Tunnel.Paths.TcpFallbackMode.Off,
        };
        using var responder = new TunnelEngine(new TunnelConfiguration { PrivateKey = responderKey, Peers = [.. others, .. stormPeers, establishedPeer] });
        using var established = new TunnelEngine(new TunnelConfiguration
        {
            PrivateKey = establishedKey,
            Peers = [new PeerConfiguration { PublicKey = responder.PublicKey!, AllowedIps = [IPPrefix.Parse("0.0.0.0/0")], Endpoint = new IPEndPoint(IPAddress.Loopback, 1), TcpFallback = Tunnel.Paths.TcpFallbackMode.Off }],
        });

        // Made before the established peer's session, which must not reach its rekey time (120 s) during the run.
        var initiators = initiatorKeys.Select((key, i) => new StormInitiator(key, responder.PublicKey!, (uint)i + 1, DatagramAddress.FromIPEndPoint(SourceOf(i)), time)).ToArray();
        var toEstablished = Batch(Packet(IPAddress.Parse("198.18.0.1"), establishedAddress));
        var fromEstablished = Batch(Packet(establishedAddress, IPAddress.Parse("198.18.0.1")));
        var wire = new WireOutput();
        established.SendPackets(fromEstablished, wire);
        for (var round = 0; round < 4; round++)
        {
            foreach (var datagram in wire.Take())
            {
                responder.ReceiveDatagram(datagram, establishedSource, wire);
            }

            foreach (var datagram in wire.Take())
            {
                established.ReceiveDatagram(datagram, responderSource, wire);
            }

            established.SendPackets(fromEstablished, wire);
        }

        wire.Take();

        // The established peer's traffic: a batch to it, a batch from it, round after round, counted as delivered.
        var stop = 0;
        long delivered = 0;
        var data = new Thread(() =>
        {
            var sent = new CountingOutput();
            var received = new CountingOutput();
            var fromWire = new SlotOutput(DataBatch);
            var batch = new ReceiveBatch(DataBatch, 2048);
            while (Volatile.Read(ref stop) == 0)
            {
                responder.SendPackets(toEstablished, sent);
                fromWire.Reset();
                established.SendPackets(fromEstablished, fromWire);
                fromWire.FillBatch(batch, establishedSource);
                responder.ReceiveDatagrams(batch, received);
                Interlocked.Exchange(ref delivered, sent.Datagrams + received.Packets);
            }
        })
        { IsBackground = true, Name = "established peer" };
        data.Start();
        Thread.Sleep(500);
        var before = Rate(ref delivered, () => Thread.Sleep(1000));

        var responses = new byte[initiators.Length][];
        var stormOutput = new WireOutput();
        var storm = Stopwatch.StartNew();
        var lastResponse = TimeSpan.Zero;
        var stormCpu = TimeSpan.Zero;
        var during = Rate(ref delivered, () =>
        {
            var cpu = ThreadCpu();
            for (var i = 0; i < initiators.Length; i++)
            {
                // The first initiations spread evenly over one second.
                var due = TimeSpan.FromSeconds((double)i / initiators.Length);
                if (due - storm.Elapsed > TimeSpan.FromMilliseconds(1))
                {
                    Thread.Sleep(due - storm.Elapsed);
                }

                var initiator = initiators[i];
                responder.ReceiveDatagram(initiator.Initiation, initiator.Source, stormOutput);
                var reply = stormOutput.Take().SingleOrDefault();
                if (reply is not null && MessageLayout.Classify(reply) == MessageType.CookieReply && initiator.TakeCookie(reply))
                {
                    responder.ReceiveDatagram(initiator.Initiation, initiator.Source, stormOutput);
                    reply = stormOutput.Take().SingleOrDefault();
                }

                if (reply is not null && MessageLayout.Classify(reply) == MessageType.Response)
                {
                    responses[i] = reply;
                    lastResponse = storm.Elapsed;
                }
            }

            stormCpu = ThreadCpu() - cpu;
        });
        var after = Rate(ref delivered, () => Thread.Sleep(1000));
        Volatile.Write(ref stop, 1);
        data.Join();

        var completed = 0;
        for (var i = 0; i < initiators.Length; i++)
        {
            if (responses[i] is { } response && initiators[i].TakeResponse(response) is { } keepalive)
            {
                responder.ReceiveDatagram(keepalive, initiators[i].Source, stormOutput);
                if (responder.CurrentKeypairOf(initiatorKeys[i].DerivePublicKey()) is not null)
                {
                    completed++;
                }
            }
        }

        var refusals = string.Concat(Enum.GetValues<TunnelDropReason>()
            .Where(reason => responder.Counters[reason] > 0 && reason != TunnelDropReason.CookieRequired)
            .Select(reason => FormattableString.Invariant($", refused {responder.Counters[reason]:N0} {TunnelCounters.NameOf(reason)}")));
        return new Result(completed, lastResponse, stormCpu / initiators.Length, responder.Counters.CookieRepliesSent, (before + after) / 2, during, refusals);
    }

    /// <summary>Initiator i's address: 100.64.0.0/10, distinct for each, so each has its own bucket of the per-source limit.</summary>
    private static IPEndPoint SourceOf(int i) => new(new IPAddress([100, (byte)(64 + (i >> 16)), (byte)(i >> 8), (byte)i]), 51820);

    /// <summary>
    /// CPU time the calling thread has run (Linux's /proc/thread-self/schedstat, in ns); zero elsewhere. The machine is
    /// shared, so the storm's wall-clock time follows the load; its CPU time a handshake does much less.
    /// </summary>
    private static TimeSpan ThreadCpu()
    {
        const string SchedStat = "/proc/thread-self/schedstat";
        return File.Exists(SchedStat) ? TimeSpan.FromTicks(long.Parse(File.ReadAllText(SchedStat).Split(' ')[0], CultureInfo.InvariantCulture) / 100) : TimeSpan.Zero;
    }

    /// <summary>Packets a second the established peer's thread delivered while <paramref name="work"/> ran.</summary>
    private static double Rate(ref long delivered, Action work)
    {
        var start = Interlocked.Read(ref delivered);
        var clock = Stopwatch.StartNew();
        work();
        return (Interlocked.Read(ref delivered) - start) / clock.Elapsed.TotalSeconds;
    }

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted[sorted.Length / 2];
    }

    private static byte[] Packet(IPAddress source, IPAddress destination)
    {
        var packet = new byte[64];
        packet[0] = 0x45;
        packet[3] = 64;
        packet[8] = 64;
        packet[9] = 17;
        source.TryWriteBytes(packet.AsSpan(12), out _);
        destination.TryWriteBytes(packet.AsSpan(16), out _);
        return packet;
    }

    private static PacketBatch Batch(byte[] packet)
    {
        var batch = new PacketBatch(DataBatch, 2048);
        for (var i = 0; i < DataBatch; i++)
        {
            batch.TryAdd(packet);
        }

        return batch;
    }

    private sealed record Result(int Completed, TimeSpan LastResponse, TimeSpan CpuPerHandshake, long Cookies, double DataBefore, double DataDuring, string Refusals);

    /// <summary>Keeps what would go on the wire, in reused buffers.</summary>
    private sealed class WireOutput : ITunnelOutput
    {
        private readonly List<byte[]> _datagrams = [];

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            var bytes = new byte[length];
            _datagrams.Add(bytes);
            return bytes;
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
        }

        public List<byte[]> Take()
        {
            var taken = _datagrams.ToList();
            _datagrams.Clear();
            return taken;
        }
    }

    /// <summary>Keeps one batch of datagrams in fixed slots, and hands them to the engine as a received batch, as the device's socket would.</summary>
    private sealed class SlotOutput(int slots) : ITunnelOutput
    {
        private const int SlotSize = 2048;
        private readonly byte[] _slots = new byte[slots * SlotSize];
        private readonly int[] _lengths = new int[slots];
        private int _count;

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            if (_count == _lengths.Length)
            {
                // More than a batch (a handshake message besides the data): not carried.
                return new byte[length];
            }

            _lengths[_count] = length;
            return _slots.AsSpan(_count++ * SlotSize, length);
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
        }

        public void Reset() => _count = 0;

        public void FillBatch(ReceiveBatch batch, DatagramAddress source)
        {
            for (var i = 0; i < _count; i++)
            {
                var offset = i * batch.SlotStride;
                _slots.AsSpan(i * SlotSize, _lengths[i]).CopyTo(batch.Buffer.AsSpan(offset));
                batch.Entries[i] = new DatagramEntry { Offset = offset, Length = _lengths[i], Address = source };
            }

            batch.SetCount(_count);
        }
    }

    /// <summary>Counts datagrams sent and packets delivered, keeping nothing.</summary>
    private sealed class CountingOutput : ITunnelOutput
    {
        private readonly byte[] _buffer = new byte[65_536];

        public long Datagrams { get; private set; }

        public long Packets { get; private set; }

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            Datagrams++;
            return _buffer.AsSpan(0, length);
        }

        public void WritePacket(ReadOnlySpan<byte> packet) => Packets++;
    }
}
