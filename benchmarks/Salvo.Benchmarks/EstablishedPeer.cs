using System.Net;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.Benchmarks;

/// <summary>
/// An engine with many peers (<see cref="Local"/>, 127.0.0.1:1, inner 198.18.0.1) and a second engine
/// (<see cref="Remote"/>, 127.0.0.1:2, inner 10.255.255.254) that is the last of them, with a session between the two
/// once <see cref="Connect"/> ran: the set-up the handshake storm and the peer-scale benchmarks share. Engine-side,
/// without sockets: datagrams are carried in memory.
/// </summary>
internal sealed class EstablishedPeer : IDisposable
{
    public static readonly IPAddress LocalInner = IPAddress.Parse("198.18.0.1");
    public static readonly IPAddress RemoteInner = IPAddress.Parse("10.255.255.254");
    public static readonly DatagramAddress LocalSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 1));
    public static readonly DatagramAddress RemoteSource = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 2));

    /// <param name="localKey">The many-peer engine's private key.</param>
    /// <param name="otherPeers">Its peers besides the remote one, which comes last.</param>
    public EstablishedPeer(WireGuardKey localKey, IEnumerable<PeerConfiguration> otherPeers)
    {
        var remoteKey = WireGuardKey.GeneratePrivateKey();
        var remotePeer = new PeerConfiguration
        {
            PublicKey = remoteKey.DerivePublicKey(),
            AllowedIps = [new IPPrefix(RemoteInner, 32)],
            Endpoint = RemoteSource.ToIPEndPoint(),
            TcpFallback = Tunnel.Paths.TcpFallbackMode.Off,
        };
        Local = new TunnelEngine(new TunnelConfiguration { PrivateKey = localKey, Peers = [.. otherPeers, remotePeer] });
        Remote = new TunnelEngine(new TunnelConfiguration
        {
            PrivateKey = remoteKey,
            Peers = [new PeerConfiguration { PublicKey = Local.PublicKey!, AllowedIps = [IPPrefix.Parse("0.0.0.0/0")], Endpoint = LocalSource.ToIPEndPoint(), TcpFallback = Tunnel.Paths.TcpFallbackMode.Off }],
        });
    }

    public TunnelEngine Local { get; }

    public TunnelEngine Remote { get; }

    /// <summary>A 64-byte IPv4 UDP packet from <paramref name="source"/> to <paramref name="destination"/>.</summary>
    public static byte[] Packet(IPAddress source, IPAddress destination)
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

    /// <summary>A batch of <paramref name="count"/> copies of <paramref name="packet"/>.</summary>
    public static PacketBatch Batch(byte[] packet, int count)
    {
        var batch = new PacketBatch(count, 2048);
        for (var i = 0; i < count; i++)
        {
            batch.TryAdd(packet);
        }

        return batch;
    }

    /// <summary>Runs the handshake both ways (the remote end initiates) and a packet each way, so both ends hold the session.</summary>
    public void Connect()
    {
        var toLocal = new WireOutput();
        var toRemote = new WireOutput();
        var fromRemote = Batch(Packet(RemoteInner, LocalInner), 1);
        var fromLocal = Batch(Packet(LocalInner, RemoteInner), 1);
        Remote.SendPackets(fromRemote, toLocal);
        for (var round = 0; round < 4; round++)
        {
            foreach (var datagram in toLocal.Take())
            {
                Local.ReceiveDatagram(datagram, RemoteSource, toRemote);
            }

            Local.SendPackets(fromLocal, toRemote);
            foreach (var datagram in toRemote.Take())
            {
                Remote.ReceiveDatagram(datagram, LocalSource, toLocal);
            }

            Remote.SendPackets(fromRemote, toLocal);
        }

        if (Local.CurrentKeypairOf(Remote.PublicKey!) is null)
        {
            throw new InvalidOperationException("The established peer's handshake did not complete.");
        }
    }

    public void Dispose()
    {
        Local.Dispose();
        Remote.Dispose();
    }

    /// <summary>Keeps what would go on the wire, a new array each.</summary>
    public sealed class WireOutput : ITunnelOutput
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

    /// <summary>Counts datagrams sent and packets delivered, keeping nothing.</summary>
    public sealed class DiscardOutput : ITunnelOutput
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
