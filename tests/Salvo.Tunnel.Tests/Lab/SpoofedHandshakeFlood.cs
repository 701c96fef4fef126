using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// Handshake initiations with a valid MAC1 (it needs only the target's public key) sent from a namespace through a raw
/// socket, each with a forged source in the lab's subnet that no host owns (198.18.0.16 to .215): the target's replies
/// to them wait for ARP that never comes. Bounded: at most <c>perSecond</c> a second, until stopped or the time limit.
/// </summary>
internal sealed class SpoofedHandshakeFlood : IDisposable
{
    public const int FirstSource = 16;
    public const int Sources = 200;

    private readonly Socket _socket;
    private readonly byte[][] _packets;
    private CancellationTokenSource _stop = new();
    private Thread? _thread;
    private long _sent;

    public SpoofedHandshakeFlood(string host, WireGuardKey targetPublicKey, string target = NetworkLab.AddressB, int targetPort = TunnelLab.PortB)
    {
        // IPPROTO_RAW: the socket sends whole IP packets (IP_HDRINCL implied) and receives nothing.
        _socket = NetworkLab.InHost(host, () => new Socket(AddressFamily.InterNetwork, SocketType.Raw, ProtocolType.Raw));
        var initiation = Initiation(targetPublicKey);
        var destination = IPAddress.Parse(target).GetAddressBytes();
        _packets = [.. Enumerable.Range(FirstSource, Sources).Select(i => Packet([198, 18, 0, (byte)i], destination, (ushort)(40_000 + i), (ushort)targetPort, initiation))];
        Target = new IPEndPoint(IPAddress.Parse(target), 0);
    }

    private IPEndPoint Target { get; }

    /// <summary>Initiations handed to the kernel so far.</summary>
    public long Sent => Interlocked.Read(ref _sent);

    /// <summary>Starts sending on a thread of its own: <paramref name="perSecond"/>, in bursts every 10 ms, until <paramref name="limit"/>.</summary>
    public void Start(int perSecond, TimeSpan limit)
    {
        var stop = _stop.Token;
        _thread = new Thread(() => Run(perSecond, limit, long.MaxValue, stop)) { IsBackground = true, Name = "flood" };
        _thread.Start();
    }

    /// <summary>Sends exactly <paramref name="count"/> (or fewer if <paramref name="limit"/> passes first) and returns when done.</summary>
    public void SendCount(long count, int perSecond, TimeSpan limit) => Run(perSecond, limit, count, CancellationToken.None);

    public void Stop()
    {
        _stop.Cancel();
        _thread?.Join(TimeSpan.FromSeconds(5));
        _thread = null;
        var stopped = _stop;
        _stop = new CancellationTokenSource();
        stopped.Dispose();
    }

    public void Dispose()
    {
        _stop.Cancel();
        _thread?.Join(TimeSpan.FromSeconds(5));
        _socket.Dispose();
        _stop.Dispose();
    }

    private void Run(int perSecond, TimeSpan limit, long count, CancellationToken stop)
    {
        var perBurst = Math.Max(1, perSecond / 100);
        var clock = Stopwatch.StartNew();
        long sentHere = 0;
        for (var burst = 0L; !stop.IsCancellationRequested && clock.Elapsed < limit && sentHere < count; burst++)
        {
            for (var i = 0; i < perBurst && sentHere < count; i++, sentHere++)
            {
                _socket.SendTo(_packets[sentHere % _packets.Length], Target);
                Interlocked.Increment(ref _sent);
            }

            // Bursts on a 10 ms grid, so a late wake-up does not lower the rate.
            var next = TimeSpan.FromMilliseconds(10 * (burst + 1));
            if (next > clock.Elapsed)
            {
                Thread.Sleep(next - clock.Elapsed);
            }
        }
    }

    /// <summary>148 bytes: type 1, random sender index, ephemeral and ciphertexts, MAC1 for the target's key, MAC2 zero.</summary>
    private static byte[] Initiation(WireGuardKey targetPublicKey)
    {
        var message = new byte[MessageLayout.InitiationSize];
        RandomNumberGenerator.Fill(message);
        MessageLayout.WriteType(message, MessageType.Initiation);
        new CookieGenerator(TunnelCrypto.Default, targetPublicKey.Bytes).AddMacs(message, MessageLayout.InitiationMac1, TimeProvider.System);
        return message;
    }

    /// <summary>IPv4 and UDP headers before the payload; the kernel fills the IP checksum, length and id, and a UDP checksum of 0 means none.</summary>
    private static byte[] Packet(byte[] source, byte[] destination, ushort sourcePort, ushort destinationPort, byte[] payload)
    {
        var packet = new byte[20 + 8 + payload.Length];
        packet[0] = 0x45;
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        packet[8] = 64;
        packet[9] = (byte)ProtocolType.Udp;
        source.CopyTo(packet, 12);
        destination.CopyTo(packet, 16);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(20), sourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(22), destinationPort);
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(24), (ushort)(8 + payload.Length));
        payload.CopyTo(packet, 28);
        return packet;
    }
}
