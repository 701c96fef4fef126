using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>One engine with thousands of peers: memory per idle peer, timers that leave idle peers alone, a burst of handshakes.</summary>
// Reads the GC heap: alone, so another test's allocations (a 100,000-peer engine) do not count.
[Collection(Control.ControlSocketMemoryCollection.Name)]
public sealed class PeerScaleTests
{
    private static readonly IPAddress s_hubAddress = IPAddress.Parse("198.18.0.1");

    [Fact]
    public void Engine_TenThousandIdlePeers_AtMostFourKilobytesOfManagedMemoryEach()
    {
        const int Peers = 10_000;
        var configuration = WireGuardConfigParser.Parse(ManyPeers.Text(WireGuardKey.GeneratePrivateKey(), Peers));

        var before = GC.GetTotalMemory(forceFullCollection: true);
        var engine = new TunnelEngine(configuration, new ManualClock());
        engine.Tick(new RecordingOutput());
        var after = GC.GetTotalMemory(forceFullCollection: true);

        Assert.InRange((after - before) / Peers, 1, 4096);
        Assert.Equal(Peers, engine.GetPeers().Count);
        engine.Dispose();
    }

    [Fact]
    public void Tick_IdlePeers_AreNotVisited_UntilOneHasATimerArmed()
    {
        var clock = new ManualClock();
        using var engine = new TunnelEngine(WireGuardConfigParser.Parse(ManyPeers.Text(WireGuardKey.GeneratePrivateKey(), 1_000)), clock);
        var output = new RecordingOutput();

        // An idle peer has no session, so the tick never visits it (only a keepalive or TcpFallback = only makes one at once).
        Assert.Equal(0, engine.TickingPeers);
        engine.Tick(output);
        Assert.Equal(0, engine.TickingPeers);

        // Data for peer 7 (198.18.0.9) starts a handshake: its retransmission timer brings it back, and only it.
        engine.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.18.0.1", "198.18.0.9")), output);
        Assert.Equal(1, engine.TickingPeers);
        for (var elapsed = TimeSpan.Zero; elapsed < TimeSpan.FromSeconds(6); elapsed += TunnelEngine.TickInterval)
        {
            clock.Advance(TunnelEngine.TickInterval);
            engine.Tick(output);
        }

        // The retransmission still fired (one initiation, then one more after REKEY_TIMEOUT plus jitter).
        Assert.Equal(2, output.Datagrams.Count(d => d.Bytes[0] == 1));
        Assert.Equal(1, engine.TickingPeers);
    }

    [Fact]
    public void Tick_PeerAddedThenRemovedWhileRunning_FiresItsKeepalivesOnlyWhileConfigured()
    {
        var clock = new ManualClock();
        using var engine = new TunnelEngine(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, clock);
        var output = new RecordingOutput();
        var key = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var add = new TunnelChange();
        add.Peers.Add(new PeerChange(key) { Endpoint = new IPEndPoint(IPAddress.Loopback, 51820), PersistentKeepalive = TimeSpan.FromSeconds(1) });
        engine.Configure(add, output);
        output.Datagrams.Clear();

        // A keepalive with no session is a handshake initiation, at most one per REKEY_TIMEOUT (5 s): one in 6 s.
        for (var i = 0; i < 60; i++)
        {
            clock.Advance(TunnelEngine.TickInterval);
            engine.Tick(output);
        }

        Assert.Single(output.Datagrams);
        var remove = new TunnelChange();
        remove.Peers.Add(new PeerChange(key) { Remove = true });
        engine.Configure(remove, output);
        output.Datagrams.Clear();
        for (var i = 0; i < 100; i++)
        {
            clock.Advance(TunnelEngine.TickInterval);
            engine.Tick(output);
        }

        Assert.Empty(output.Datagrams);
        Assert.Equal(0, engine.TickingPeers);
    }

    [Fact]
    public void Handshakes_ThousandDistinctPeersInABurst_AllComplete()
    {
        const int Clients = 1_000;
        var clock = new ManualClock();
        var hubKey = WireGuardKey.GeneratePrivateKey();
        var hubEndpoint = new IPEndPoint(IPAddress.Loopback, 51820);
        var clientKeys = Enumerable.Range(0, Clients).Select(_ => WireGuardKey.GeneratePrivateKey()).ToArray();
        using var hub = new TunnelEngine(
            new TunnelConfiguration
            {
                PrivateKey = hubKey,
                Peers = [.. clientKeys.Select((key, i) => new PeerConfiguration
                {
                    PublicKey = key.DerivePublicKey(),
                    AllowedIps = [new IPPrefix(ClientAddress(i), 32)],
                    TcpFallback = TcpFallbackMode.Off,
                })],
            },
            clock);
        var clients = clientKeys.Select((key, i) => new TunnelEngine(
            new TunnelConfiguration
            {
                PrivateKey = key,
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = hubKey.DerivePublicKey(),
                        AllowedIps = [new IPPrefix(s_hubAddress, 32)],
                        Endpoint = hubEndpoint,
                        TcpFallback = TcpFallbackMode.Off,
                    },
                ],
            },
            clock,
            jitter: new Random(i))).ToArray();
        try
        {
            // Each client from its own address, as distinct hosts are: 127.1.x.y:51821.
            var sources = Enumerable.Range(0, Clients).Select(i => DatagramAddress.FromIPEndPoint(new IPEndPoint(ClientAddress(i, loopback: true), 51821))).ToArray();
            var byAddress = Enumerable.Range(0, Clients).ToDictionary(i => sources[i]);
            var clientOut = clients.Select(_ => new RecordingOutput()).ToArray();
            var hubOut = new RecordingOutput();
            for (var i = 0; i < Clients; i++)
            {
                clients[i].SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet(ClientAddress(i).ToString(), s_hubAddress.ToString())), clientOut[i]);
            }

            // Every initiation reaches the hub at once; then the wire runs in 100 ms ticks, for at most a minute.
            for (var round = 0; round < 600 && hubOut.Packets.Count < Clients; round++)
            {
                for (var i = 0; i < Clients; i++)
                {
                    foreach (var (bytes, _) in clientOut[i].TakeDatagrams())
                    {
                        hub.ReceiveDatagram(bytes, sources[i], hubOut);
                    }
                }

                foreach (var (bytes, destination) in hubOut.TakeDatagrams())
                {
                    var i = byAddress[destination];
                    clients[i].ReceiveDatagram(bytes, DatagramAddress.FromIPEndPoint(hubEndpoint), clientOut[i]);
                }

                clock.Advance(TunnelEngine.TickInterval);
                hub.Tick(hubOut);
                for (var i = 0; i < Clients; i++)
                {
                    clients[i].Tick(clientOut[i]);
                }
            }

            // Every client's first packet arrived: each handshake completed (past the budget, after a cookie round).
            Assert.Equal(Clients, hubOut.Packets.Select(p => new IPAddress(p.AsSpan(12, 4))).Distinct().Count());
            Assert.All(hub.GetPeers(), peer => Assert.True(peer.HasSession));
            Assert.True(hub.Counters.CookieRepliesSent > 0, "the burst passed the handshake budget, so some were asked for a cookie first");
        }
        finally
        {
            foreach (var client in clients)
            {
                client.Dispose();
            }
        }
    }

    private static IPAddress ClientAddress(int i, bool loopback = false) =>
        new([loopback ? (byte)127 : (byte)198, loopback ? (byte)1 : (byte)18, (byte)((i + 2) >> 8), (byte)(i + 2)]);
}
