using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// Two engines, Alice (198.19.0.1, knows Bob's endpoint) and Bob (198.19.0.2), with both paths modelled under one
/// fake clock: UDP, which tests can block, and one TCP connection that exists once Alice's dial is answered with
/// <see cref="OpenTcp"/>. Each side names the connection by its own <see cref="TcpPathAddress"/>, as two devices would.
/// </summary>
internal sealed class FallbackPair : IDisposable
{
    public static readonly DatagramAddress AliceUdp = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse("198.18.0.1"), 51821));
    public static readonly DatagramAddress BobUdp = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Parse("198.18.0.2"), 51820));
    public static readonly DatagramAddress AliceTcp = TcpPathAddress.Create(1);
    public static readonly DatagramAddress BobTcp = TcpPathAddress.Create(2);

    /// <summary>
    /// Slower timers than the defaults, so that each step of a test stands seconds apart: the silence probed after 1 s,
    /// left 1 s later, and no jitter, so the probe schedule on TCP is exactly 5, 10, 20, 40, 60, 60 s.
    /// </summary>
    public static readonly TcpFallbackOptions Timers = new()
    {
        ProbeAfter = TimeSpan.FromSeconds(1),
        ProbeTimeout = TimeSpan.FromSeconds(1),
        UdpReprobeBackoff = new(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60), Jitter: 0),
    };

    private readonly TcpFallbackOptions _timers;

    public FallbackPair(TcpFallbackMode aliceMode = TcpFallbackMode.Auto, TcpFallbackMode bobMode = TcpFallbackMode.Auto, TcpFallbackOptions? timers = null)
    {
        _timers = timers ?? Timers;
        var aliceKey = WireGuardKey.GeneratePrivateKey();
        var bobKey = WireGuardKey.GeneratePrivateKey();
        AlicePeer = bobKey.DerivePublicKey();
        BobPeer = aliceKey.DerivePublicKey();
        Alice = Engine(aliceKey, AlicePeer, "198.19.0.2/32", BobUdp.ToIPEndPoint(), aliceMode, AliceLog);
        Bob = Engine(bobKey, BobPeer, "198.19.0.1/32", endpoint: null, bobMode, BobLog);
        Alice.UseTcpPaths(AliceConnector);
        Bob.UseTcpPaths(BobConnector);
    }

    public ManualClock Clock { get; } = new();

    public TunnelEngine Alice { get; }

    public TunnelEngine Bob { get; }

    /// <summary>Alice's peer: Bob's public key.</summary>
    public WireGuardKey AlicePeer { get; }

    /// <summary>Bob's peer: Alice's public key.</summary>
    public WireGuardKey BobPeer { get; }

    public RecordingOutput AliceOut { get; } = new();

    public RecordingOutput BobOut { get; } = new();

    public RecordingLogger AliceLog { get; } = new();

    public RecordingLogger BobLog { get; } = new();

    public RecordingConnector AliceConnector { get; } = new();

    public RecordingConnector BobConnector { get; } = new();

    public bool UdpBlocked { get; set; }

    /// <summary>Drops the UDP datagrams it returns true for (while UDP is not blocked), as a lossy path would.</summary>
    public Func<byte[], bool>? UdpLoses { get; set; }

    public bool TcpOpen { get; private set; }

    /// <summary>While true, messages over TCP wait (in order) instead of arriving: a slow connection. <see cref="ReleaseTcp"/> delivers them.</summary>
    public bool TcpHeld { get; set; }

    private readonly List<(byte[] Bytes, TunnelEngine To, RecordingOutput ToOut, DatagramAddress Source)> _heldTcp = [];

    /// <summary>Stops holding TCP and delivers what waited, then carries the answers.</summary>
    public void ReleaseTcp()
    {
        TcpHeld = false;
        foreach (var (bytes, to, toOut, source) in _heldTcp)
        {
            to.ReceiveDatagram(bytes, source, toOut);
        }

        _heldTcp.Clear();
        Exchange();
    }

    /// <summary>UDP datagrams dropped while blocked, both ways.</summary>
    public int UdpDropped { get; private set; }

    public TunnelPath AlicePath => Alice.GetPeers()[0].Path;

    public TunnelPath BobPath => Bob.GetPeers()[0].Path;

    public static byte[] Packet(string from, string to, int payload = 8) => TunnelPair.IPv4Packet(from, to, payload);

    public void AliceSends(int payload = 8) => Alice.SendPackets(TunnelPair.Batch(Packet("198.19.0.1", "198.19.0.2", payload)), AliceOut);

    public void BobSends(int payload = 8) => Bob.SendPackets(TunnelPair.Batch(Packet("198.19.0.2", "198.19.0.1", payload)), BobOut);

    /// <summary>The TCP connection Alice dialed is up: both ends have it; Alice is told hers is open.</summary>
    public void OpenTcp()
    {
        TcpOpen = true;
        Alice.OnTcpPathOpened(AlicePeer, AliceTcp);
    }

    /// <summary>The connection carries nothing more either way, and neither end is told (a NAT that forgot it).</summary>
    public void TcpGoesSilent() => TcpOpen = false;

    /// <summary>The connection is gone at both ends.</summary>
    public void CloseTcp()
    {
        TcpOpen = false;
        Alice.OnTcpPathClosed(AliceTcp);
        Bob.OnTcpPathClosed(BobTcp);
    }

    /// <summary>Carries what both sent, over the path each datagram was addressed to, until the wire is quiet.</summary>
    public void Exchange()
    {
        for (var round = 0; round < 20; round++)
        {
            var fromAlice = AliceOut.TakeDatagrams();
            var fromBob = BobOut.TakeDatagrams();
            if (fromAlice.Count == 0 && fromBob.Count == 0)
            {
                return;
            }

            foreach (var (bytes, destination) in fromAlice)
            {
                Carry(bytes, destination, Bob, BobOut, AliceUdp, BobTcp);
            }

            foreach (var (bytes, destination) in fromBob)
            {
                Carry(bytes, destination, Alice, AliceOut, BobUdp, AliceTcp);
            }
        }

        throw new InvalidOperationException("The engines kept talking for 20 rounds.");
    }

    /// <summary>Moves the clock in 100 ms ticks as the device does, ticking both engines and carrying what they send.</summary>
    public void Run(TimeSpan duration, Action? eachTick = null)
    {
        for (var elapsed = TimeSpan.Zero; elapsed < duration; elapsed += TunnelEngine.TickInterval)
        {
            Clock.Advance(TunnelEngine.TickInterval);
            eachTick?.Invoke();
            Alice.Tick(AliceOut);
            Bob.Tick(BobOut);
            Exchange();
        }
    }

    /// <summary>A handshake and one packet each way, so both have a session and neither waits for an answer.</summary>
    public void Connect()
    {
        AliceSends();
        Exchange();
        BobSends();
        Exchange();
        AliceOut.Packets.Clear();
        BobOut.Packets.Clear();
    }

    public void Dispose()
    {
        Alice.Dispose();
        Bob.Dispose();
    }

    private void Carry(byte[] bytes, DatagramAddress destination, TunnelEngine to, RecordingOutput toOut, DatagramAddress udpSource, DatagramAddress tcpSource)
    {
        if (TcpPathAddress.IsTcp(destination))
        {
            if (TcpOpen && TcpHeld)
            {
                _heldTcp.Add((bytes, to, toOut, tcpSource));
            }
            else if (TcpOpen)
            {
                to.ReceiveDatagram(bytes, tcpSource, toOut);
            }
        }
        else if (UdpBlocked || UdpLoses?.Invoke(bytes) == true)
        {
            UdpDropped++;
        }
        else
        {
            to.ReceiveDatagram(bytes, udpSource, toOut);
        }
    }

    private TunnelEngine Engine(WireGuardKey key, WireGuardKey peer, string allowed, IPEndPoint? endpoint, TcpFallbackMode mode, RecordingLogger log) => new(
        new TunnelConfiguration
        {
            PrivateKey = key,
            TcpFallback = _timers,
            Peers = [new PeerConfiguration { PublicKey = peer, AllowedIps = [IPPrefix.Parse(allowed)], Endpoint = endpoint, TcpFallback = mode }],
        },
        Clock,
        jitter: new Random(1),
        logger: log);
}

/// <summary>Keeps what an engine asked of its TCP side.</summary>
internal sealed class RecordingConnector : ITcpPathConnector
{
    public List<(WireGuardKey Peer, IPEndPoint EndPoint)> Dials { get; } = [];

    public List<(DatagramAddress Path, TimeSpan After)> Closes { get; } = [];

    public void Dial(WireGuardKey peer, IPEndPoint endPoint) => Dials.Add((peer, endPoint));

    public List<DatagramAddress> Authenticated { get; } = [];

    public void Close(DatagramAddress path, TimeSpan after) => Closes.Add((path, after));

    void ITcpPathConnector.Authenticated(DatagramAddress path) => Authenticated.Add(path);
}
