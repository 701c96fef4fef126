using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Net;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// A device read of many packets to one peer leaves in bursts of at most <see cref="PeerBurst.DefaultLimit"/> datagrams
/// per system call (a receiver that reads one datagram per call with the default socket buffer overflowed on whole
/// 128-datagram batches), and the packets arrive in the order they were read.
/// </summary>
public sealed class PeerBurstTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);
    private static readonly DatagramAddress s_peer = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 51820));
    private static readonly DatagramAddress s_other = DatagramAddress.FromIPEndPoint(new IPEndPoint(IPAddress.Loopback, 51821));

    [Fact]
    public void Add_SameDestination_FullOnceEveryLimit()
    {
        var burst = new PeerBurst(limit: 3);

        var full = Enumerable.Range(0, 7).Select(_ => burst.Add(s_peer)).ToArray();

        Assert.Equal([false, false, false, true, false, false, true], full);
    }

    [Fact]
    public void Add_OtherDestination_StartsANewBurst()
    {
        var burst = new PeerBurst(limit: 2);

        var full = new[] { s_peer, s_peer, s_other, s_other, s_peer, s_peer, s_peer }.Select(burst.Add).ToArray();

        Assert.Equal([false, false, false, false, false, false, true], full);
    }

    [Fact]
    public void TunnelDevice_FullReadToOnePeer_SendsBurstsOfAtMostTheLimitInOrder()
    {
        using var devices = new DevicePair(IPAddress.Loopback);
        devices.TunA.Inject(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        Assert.NotNull(devices.TunB.TakeDelivered(s_patience));
        var sends = new ConcurrentQueue<(int Datagrams, int LongestRun)>();
        devices.A.SendObserver = batch => sends.Enqueue((batch.Count, LongestRun(batch)));

        // 128 MTU-sized packets queued at once: one device read, as a TCP sender's super-packets give.
        var packets = Enumerable.Range(0, 128).Select(Numbered).ToArray();
        devices.TunA.InjectAll(packets);

        foreach (var packet in packets)
        {
            Assert.Equal(packet, devices.TunB.TakeDelivered(s_patience));
        }

        Assert.True(sends.Sum(send => send.Datagrams) >= packets.Length);
        Assert.All(sends, send => Assert.InRange(send.LongestRun, 1, PeerBurst.DefaultLimit));
    }

    /// <summary>A 1,400-byte packet from A to B carrying <paramref name="sequence"/>, so a swap or a loss shows.</summary>
    private static byte[] Numbered(int sequence)
    {
        var packet = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", payloadLength: 1_380);
        BinaryPrimitives.WriteInt32BigEndian(packet.AsSpan(20), sequence);
        return packet;
    }

    /// <summary>The most datagrams in a row to one destination: what one GSO message or burst carries.</summary>
    private static int LongestRun(SendBatch batch)
    {
        var longest = 0;
        var run = 0;
        for (var i = 0; i < batch.Count; i++)
        {
            run = i > 0 && batch.GetDestination(i) == batch.GetDestination(i - 1) ? run + 1 : 1;
            longest = Math.Max(longest, run);
        }

        return longest;
    }
}
