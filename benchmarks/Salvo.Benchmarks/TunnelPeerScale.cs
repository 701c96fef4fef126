using System.Diagnostics;
using System.Globalization;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Benchmarks;

/// <summary>
/// What a tunnel with many peers costs, engine-side and without a device: parsing the configuration, building the
/// engine, managed memory per idle peer, one timer tick over every peer, and the cost of one packet sent to and
/// received from a peer with 1 peer configured against N (the ratio shows whether per-packet work grows with the
/// peer count). Also writes the N-peer configuration for benchmarks/tunnel-peers/run.sh.
/// Usage: tunnel-peers [peers=10000] [write FILE]
/// </summary>
internal static class TunnelPeerScale
{
    private const int Packets = 200_000;

    public static int Run(string[] args)
    {
        var peers = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 10_000;
        if (args.Length > 2 && args[1] == "write")
        {
            File.WriteAllText(args[2], ManyPeers.Text(WireGuardKey.GeneratePrivateKey(), peers));
            Console.WriteLine($"wrote {args[2]}: {peers:N0} peers, {2 * peers:N0} AllowedIPs prefixes");
            return 0;
        }

        var text = ManyPeers.Text(WireGuardKey.GeneratePrivateKey(), peers);
        if (args.Length > 1 && args[1] == "warm")
        {
            // The same work once before, so what follows runs fully compiled (a process that starts runs it cold).
            new TunnelEngine(WireGuardConfigParser.Parse(text)).Dispose();
        }

        var parse = Stopwatch.StartNew();
        var configuration = WireGuardConfigParser.Parse(text);
        parse.Stop();

        var before = GC.GetTotalMemory(forceFullCollection: true);
        var build = Stopwatch.StartNew();
        var engine = new TunnelEngine(configuration);
        build.Stop();
        var after = GC.GetTotalMemory(forceFullCollection: true);
        GC.KeepAlive(engine);

        var output = new EstablishedPeer.DiscardOutput();
        engine.Tick(output);
        var ticks = Stopwatch.StartNew();
        const int TickRounds = 100;
        for (var i = 0; i < TickRounds; i++)
        {
            engine.Tick(output);
        }

        ticks.Stop();
        Console.WriteLine(FormattableString.Invariant(
            $"{peers:N0} peers, {2 * peers:N0} prefixes: parse {parse.Elapsed.TotalMilliseconds:F0} ms, engine build {build.Elapsed.TotalMilliseconds:F0} ms, managed memory {(after - before) / (double)peers:F0} B per idle peer, tick {ticks.Elapsed.TotalMicroseconds / TickRounds:F1} us"));
        engine.Dispose();

        // Once to compile the paths, then alternated three times: the median of each.
        PerPacket(1);
        var ones = new List<(double Send, double Receive)>();
        var manys = new List<(double Send, double Receive)>();
        for (var round = 0; round < 3; round++)
        {
            ones.Add(PerPacket(1));
            manys.Add(PerPacket(peers));
        }

        var one = (Send: Median(ones.Select(x => x.Send)), Receive: Median(ones.Select(x => x.Receive)));
        var many = (Send: Median(manys.Select(x => x.Send)), Receive: Median(manys.Select(x => x.Receive)));
        Console.WriteLine(FormattableString.Invariant(
            $"per packet (64 B, {Packets:N0}, median of 3): send 1 peer {one.Send:F0} ns, {peers:N0} peers {many.Send:F0} ns (x{many.Send / one.Send:F2}); receive 1 peer {one.Receive:F0} ns, {peers:N0} peers {many.Receive:F0} ns (x{many.Receive / one.Receive:F2})"));
        return 0;
    }

    /// <summary>ns per packet sent to, and received from, the last of <paramref name="peers"/> peers, with its session up.</summary>
    private static (double Send, double Receive) PerPacket(int peers)
    {
        var localKey = WireGuardKey.GeneratePrivateKey();
        using var pair = new EstablishedPeer(localKey, WireGuardConfigParser.Parse(ManyPeers.Text(localKey, peers - 1)).Peers);
        pair.Connect();
        var (local, remote) = (pair.Local, pair.Remote);

        var batch = EstablishedPeer.Batch(EstablishedPeer.Packet(EstablishedPeer.LocalInner, EstablishedPeer.RemoteInner), 64);
        var discard = new EstablishedPeer.DiscardOutput();
        var send = Stopwatch.StartNew();
        for (var i = 0; i < Packets / 64; i++)
        {
            local.SendPackets(batch, discard);
        }

        send.Stop();

        var replies = EstablishedPeer.Batch(EstablishedPeer.Packet(EstablishedPeer.RemoteInner, EstablishedPeer.LocalInner), 64);
        var toLocal = new EstablishedPeer.WireOutput();
        for (var i = 0; i < Packets / 64; i++)
        {
            remote.SendPackets(replies, toLocal);
        }

        var datagrams = toLocal.Take();
        var receive = Stopwatch.StartNew();
        foreach (var datagram in datagrams)
        {
            local.ReceiveDatagram(datagram, EstablishedPeer.RemoteSource, discard);
        }

        receive.Stop();
        return (send.Elapsed.TotalNanoseconds / (Packets / 64 * 64), receive.Elapsed.TotalNanoseconds / datagrams.Count);
    }

    private static double Median(IEnumerable<double> values) => values.Order().ElementAt(1);
}
