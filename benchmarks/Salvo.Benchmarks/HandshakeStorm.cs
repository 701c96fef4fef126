using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Benchmarks;

/// <summary>
/// A storm of new handshakes at an engine with many peers, modelled on the device but without sockets: one thread
/// plays the device's inbound loop, receiving batches that hold the established peer's data and whatever storm
/// messages arrived meanwhile; the handshakes go where the device sends them (<see cref="HandshakeStormThread"/>: the
/// handshake queue and thread, or inline in older code). N initiators (peers of the engine, each from its configured
/// endpoint) send their first initiation spread over one second; past the engine's budget, or with its queue an eighth
/// full, it is under load and answers with cookie replies, which the initiators answer with the same initiation
/// carrying MAC2. An initiation that got no answer (dropped from a full queue) is sent again after REKEY_TIMEOUT (5 s),
/// as WireGuard does. The established peer's rate during the storm is compared with its rate in the 3 s before and
/// the 3 s after (once the storm's last messages were served). The initiators' own Diffie-Hellman work is done before the storm (their initiations) and after it
/// (taking the responses and confirming each session with a keepalive), so the storm's time is the responder's.
/// Usage: handshake-storm [peers=1000000] [initiators=10000] [runs=3]
/// </summary>
internal static class HandshakeStorm
{
    private const int DataBatch = 64;

    /// <summary>Storm messages the inbound loop takes into one batch besides the data, as a socket's batch would mix them.</summary>
    private const int StormPerBatch = 64;

    /// <summary>
    /// Storm messages that may wait for the inbound loop, as its socket's receive buffer would hold them: the device
    /// asks for 8 MiB, and a 148-byte datagram takes about 1 KiB of it (its sk_buff's truesize); the rest is lost.
    /// </summary>
    private const int SocketBufferMessages = 8192;

    /// <summary>REKEY_TIMEOUT, and the jitter WireGuard adds to each retry (REKEY_TIMEOUT_JITTER_MAX_MS, 333 ms).</summary>
    private static readonly TimeSpan s_retryAfter = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan s_retryJitter = TimeSpan.FromMilliseconds(333);

    /// <summary>How long the established peer's rate is measured before and after the storm: the machine is shared, and a second was noise.</summary>
    private static readonly TimeSpan s_quietWindow = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan s_giveUpAfter = TimeSpan.FromSeconds(60);

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
        Console.WriteLine(FormattableString.Invariant($"{peers:N0} peers ({others.Count:N0} idle, {initiators:N0} initiators, 1 established), configuration in {parse.Elapsed.TotalSeconds:F1} s; handshakes {HandshakeStormThread.Model}"));
        var initiatorKeys = Enumerable.Range(0, initiators).Select(_ => WireGuardKey.GeneratePrivateKey()).ToArray();

        var results = new List<Result>();
        for (var run = 0; run < runs; run++)
        {
            var result = RunOnce(responderKey, others, initiatorKeys);
            results.Add(result);
            Console.WriteLine(FormattableString.Invariant(
                $"run {run + 1}: completed {result.Completed:N0} / {initiators:N0}, last response {result.LastResponse.TotalMilliseconds:F0} ms after the first initiation, cookie replies {result.Cookies:N0}, resent after 5 s {result.Resent:N0}, lost in the socket buffer {result.LostInSocketBuffer:N0}, established peer during {result.DataDuring:N0} pkt/s vs before {result.DataBefore:N0} and after {result.DataAfter:N0} (x{result.Ratio:F2}){result.Refusals}"));
            GC.Collect();
        }

        Console.WriteLine(FormattableString.Invariant(
            $"median of {runs}: completed {Median(results.Select(r => (double)r.Completed)):F0} / {initiators:N0}, last response {Median(results.Select(r => r.LastResponse.TotalMilliseconds)):F0} ms, cookie replies {Median(results.Select(r => (double)r.Cookies)):F0}, established peer's rate x{Median(results.Select(r => r.Ratio)):F2}"));
        return 0;
    }

    private static Result RunOnce(WireGuardKey responderKey, IReadOnlyList<PeerConfiguration> others, WireGuardKey[] initiatorKeys)
    {
        var time = TimeProvider.System;
        var stormPeers = initiatorKeys.Select((key, i) => new PeerConfiguration
        {
            PublicKey = key.DerivePublicKey(),
            AllowedIps = [new IPPrefix(AddressOf(i), 32)],
            Endpoint = new IPEndPoint(AddressOf(i), 51820),
            TcpFallback = TcpFallbackMode.Off,
        });
        using var pair = new EstablishedPeer(responderKey, [.. others, .. stormPeers]);
        var (responder, established) = (pair.Local, pair.Remote);

        // Made before the established peer's session, which must not reach its rekey time (120 s) during the run.
        var initiators = initiatorKeys.Select((key, i) => new StormInitiator(key, responder.PublicKey!, (uint)i + 1, DatagramAddress.FromIPEndPoint(new IPEndPoint(AddressOf(i), 51820)), time)).ToArray();
        pair.Connect();

        var toResponder = new ConcurrentQueue<(byte[] Bytes, DatagramAddress Source)>();
        var toInitiators = new ConcurrentQueue<(byte[] Bytes, DatagramAddress Destination)>();
        var handshakes = HandshakeStormThread.Start(responder, new StormOutput(toInitiators));

        // The inbound loop: the established peer's data, a batch each way, with the storm's messages that came meanwhile.
        var stop = 0;
        long delivered = 0;
        var toEstablished = EstablishedPeer.Batch(EstablishedPeer.Packet(EstablishedPeer.LocalInner, EstablishedPeer.RemoteInner), DataBatch);
        var fromEstablished = EstablishedPeer.Batch(EstablishedPeer.Packet(EstablishedPeer.RemoteInner, EstablishedPeer.LocalInner), DataBatch);
        var data = new Thread(() =>
        {
            var sent = new EstablishedPeer.DiscardOutput();
            var received = new StormOutput(toInitiators);
            var fromWire = new SlotOutput(DataBatch);
            var batch = new ReceiveBatch(DataBatch + StormPerBatch, 2048);
            while (Volatile.Read(ref stop) == 0)
            {
                responder.SendPackets(toEstablished, sent);
                fromWire.Reset();
                established.SendPackets(fromEstablished, fromWire);
                fromWire.FillBatch(batch, EstablishedPeer.RemoteSource, toResponder, StormPerBatch);
                responder.ReceiveDatagrams(batch, received);
                received.Flush();
                Interlocked.Exchange(ref delivered, sent.Datagrams + received.Packets);
            }
        })
        { IsBackground = true, Name = "inbound" };
        data.Start();
        Thread.Sleep(500);
        var before = Rate(ref delivered, () => Thread.Sleep(s_quietWindow));

        var storm = new Storm(initiators, toResponder, toInitiators);
        var during = Rate(ref delivered, storm.Run);

        // Messages still on their way in, and those the handshake thread still holds (at most 1,024, about a second
        // and a half of work here), are the storm's, not the quiet after it.
        var settle = Stopwatch.StartNew();
        while (!toResponder.IsEmpty && settle.Elapsed < TimeSpan.FromSeconds(30))
        {
            Thread.Sleep(10);
        }

        Thread.Sleep(TimeSpan.FromSeconds(2));
        var after = Rate(ref delivered, () => Thread.Sleep(s_quietWindow));
        Volatile.Write(ref stop, 1);
        data.Join();
        handshakes?.Dispose();

        var completed = 0;
        var confirm = new EstablishedPeer.DiscardOutput();
        for (var i = 0; i < initiators.Length; i++)
        {
            if (storm.Responses[i] is { } response && initiators[i].TakeResponse(response) is { } keepalive)
            {
                responder.ReceiveDatagram(keepalive, initiators[i].Source, confirm);
                if (responder.CurrentKeypairOf(initiatorKeys[i].DerivePublicKey()) is not null)
                {
                    completed++;
                }
            }
        }

        var refusals = string.Concat(Enum.GetValues<TunnelDropReason>()
            .Where(reason => responder.Counters[reason] > 0 && reason != TunnelDropReason.CookieRequired)
            .Select(reason => FormattableString.Invariant($", refused {responder.Counters[reason]:N0} {TunnelCounters.NameOf(reason)}")));
        return new Result(completed, storm.LastResponse, responder.Counters.CookieRepliesSent, storm.Resent, storm.LostInSocketBuffer, before, during, after, refusals);
    }

    /// <summary>Initiator i's address: 100.64.0.0/10, distinct for each, so each has its own bucket of the per-source limit.</summary>
    private static IPAddress AddressOf(int i) => new([100, (byte)(64 + (i >> 16)), (byte)(i >> 8), (byte)i]);

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

    private sealed record Result(int Completed, TimeSpan LastResponse, long Cookies, long Resent, long LostInSocketBuffer, double DataBefore, double DataDuring, double DataAfter, string Refusals)
    {
        public double Ratio => DataDuring / ((DataBefore + DataAfter) / 2);
    }

    /// <summary>
    /// The initiators' side of the network: first initiations spread over one second, a cookie reply answered at once
    /// with MAC2, an initiation without an answer sent again after 5 s and a jitter of up to 333 ms; ends when every initiator has its response,
    /// or after 60 s.
    /// </summary>
    private sealed class Storm(StormInitiator[] initiators, ConcurrentQueue<(byte[] Bytes, DatagramAddress Source)> toResponder, ConcurrentQueue<(byte[] Bytes, DatagramAddress Destination)> toInitiators)
    {
        private readonly long[] _retryAt = new long[initiators.Length];
        private readonly Random _jitter = new(1);

        public byte[]?[] Responses { get; } = new byte[initiators.Length][];

        public TimeSpan LastResponse { get; private set; }

        public long Resent { get; private set; }

        public long LostInSocketBuffer { get; private set; }

        public void Run()
        {
            var clock = Stopwatch.StartNew();
            var next = 0;
            var answered = 0;
            var nextRetryScan = TimeSpan.Zero;
            while (answered < initiators.Length && clock.Elapsed < s_giveUpAfter)
            {
                var busy = false;
                while (next < initiators.Length && TimeSpan.FromSeconds((double)next / initiators.Length) <= clock.Elapsed)
                {
                    Send(next++, clock);
                    busy = true;
                }

                while (toInitiators.TryDequeue(out var reply))
                {
                    busy = true;
                    var i = IndexOf(reply.Destination);
                    if (i < 0 || i >= initiators.Length || Responses[i] is not null)
                    {
                        continue;
                    }

                    var type = MessageLayout.Classify(reply.Bytes);
                    if (type == MessageType.CookieReply && initiators[i].TakeCookie(reply.Bytes))
                    {
                        Send(i, clock);
                    }
                    else if (type == MessageType.Response)
                    {
                        Responses[i] = reply.Bytes;
                        LastResponse = clock.Elapsed;
                        answered++;
                    }
                }

                if (clock.Elapsed >= nextRetryScan)
                {
                    nextRetryScan = clock.Elapsed + TimeSpan.FromMilliseconds(100);
                    for (var i = 0; i < next; i++)
                    {
                        if (Responses[i] is null && clock.ElapsedTicks >= _retryAt[i])
                        {
                            Send(i, clock);
                            Resent++;
                        }
                    }
                }

                if (!busy)
                {
                    Thread.Sleep(1);
                }
            }
        }

        private void Send(int i, Stopwatch clock)
        {
            var retryAfter = s_retryAfter + (s_retryJitter * _jitter.NextDouble());
            _retryAt[i] = clock.ElapsedTicks + (long)(retryAfter.TotalSeconds * Stopwatch.Frequency);
            if (toResponder.Count >= SocketBufferMessages)
            {
                LostInSocketBuffer++;
                return;
            }

            toResponder.Enqueue((initiators[i].Initiation.ToArray(), initiators[i].Source));
        }

        private static int IndexOf(DatagramAddress destination)
        {
            var bytes = destination.ToIPEndPoint().Address.GetAddressBytes();
            return bytes.Length == 4 && bytes[0] == 100 ? ((bytes[1] - 64) << 16) | (bytes[2] << 8) | bytes[3] : -1;
        }
    }

    /// <summary>
    /// What the responder sends, as the device's output would: data to the established peer is counted and dropped,
    /// anything else (handshake answers to the storm's initiators) goes to them on <see cref="Flush"/>.
    /// </summary>
    private sealed class StormOutput(ConcurrentQueue<(byte[] Bytes, DatagramAddress Destination)> toInitiators) : IBatchedOutput
    {
        private readonly byte[] _discard = new byte[65_536];
        private readonly List<(byte[] Bytes, DatagramAddress Destination)> _pending = [];

        public long Packets { get; private set; }

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            if (destination.Equals(EstablishedPeer.RemoteSource))
            {
                return _discard.AsSpan(0, length);
            }

            var bytes = new byte[length];
            _pending.Add((bytes, destination));
            return bytes;
        }

        public void WritePacket(ReadOnlySpan<byte> packet) => Packets++;

        public void Flush()
        {
            foreach (var datagram in _pending)
            {
                toInitiators.Enqueue(datagram);
            }

            _pending.Clear();
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

        /// <summary>The batch: this output's datagrams from <paramref name="source"/>, then up to <paramref name="most"/> waiting in <paramref name="storm"/>.</summary>
        public void FillBatch(ReceiveBatch batch, DatagramAddress source, ConcurrentQueue<(byte[] Bytes, DatagramAddress Source)> storm, int most)
        {
            var count = 0;
            for (; count < _count; count++)
            {
                Put(batch, count, _slots.AsSpan(count * SlotSize, _lengths[count]), source);
            }

            for (var taken = 0; taken < most && storm.TryDequeue(out var message); taken++)
            {
                Put(batch, count++, message.Bytes, message.Source);
            }

            batch.SetCount(count);
        }

        private static void Put(ReceiveBatch batch, int index, ReadOnlySpan<byte> datagram, DatagramAddress source)
        {
            var offset = index * batch.SlotStride;
            datagram.CopyTo(batch.Buffer.AsSpan(offset));
            batch.Entries[index] = new DatagramEntry { Offset = offset, Length = datagram.Length, Address = source };
        }
    }
}
