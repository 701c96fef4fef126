using System.Diagnostics;
using System.Globalization;
using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;
using Xunit.Abstractions;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// Strangers against B's TCP fallback listener (connections from 127.0.1.x sending junk frames) opened before A, in
/// TCP-only mode, dials B: A's connection must still get through and carry the tunnel.
/// </summary>
public sealed class TcpFallbackStrangerTests(ITestOutputHelper output)
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(15);
    private static readonly byte[] s_firstPacket = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 99);

    [Fact]
    public void JunkConnectionsFillingTheOldPlaces_APeersConnectionGetsThrough_AndOutlivesTheJunk()
    {
        // 30 strangers from 3 addresses: more than the 20 places (16 + 4 per peer) the listener used to have in all;
        // each address may hold 8, so 6 are refused at once.
        JunkConnections? junk = null;
        var logB = new RecordingLogger();
        using var devices = new DevicePair(
            IPAddress.Loopback,
            modeA: TcpFallbackMode.Only,
            startA: (configuration, tun) =>
            {
                junk = new JunkConnections(configuration.Peers[0].Endpoint!.Port, count: 30, sources: 3);
                return TunnelDevice.Start(configuration, tun);
            },
            startB: (configuration, tun) => TunnelDevice.Start(configuration, tun, logger: logB));
        using var strangers = junk!;

        Assert.True(FirstPacketCrosses(devices), "no packet crossed over TCP with 30 junk connections open");
        var toA = TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 200);
        devices.TunB.Inject(toA);
        Assert.Equal(toA, devices.TunA.TakeDelivered(s_wait));

        // The strangers never authenticate: each is closed 8 s after it opened, and the peer's connection is not.
        var counters = devices.B.Engine.Counters;
        var clock = Stopwatch.StartNew();
        while (counters[TunnelDropReason.TcpUnauthenticatedTimeout] < 24 && clock.Elapsed < s_wait)
        {
            strangers.SendJunk(reconnect: false);
            Thread.Sleep(200);
        }

        Assert.Equal(24, counters[TunnelDropReason.TcpUnauthenticatedTimeout]);
        Assert.Equal(6, counters[TunnelDropReason.TcpSourceLimit]);
        Assert.Equal(0, counters[TunnelDropReason.TcpUnauthenticatedEvicted]);
        var toB = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 300);
        devices.TunA.Inject(toB);
        Assert.True(Delivered(devices.TunB, toB), "no packet crossed after the junk was closed");
        Assert.Equal(TunnelPath.Tcp, devices.B.Engine.GetPeers()[0].Path);
        Assert.Equal(1, devices.A.Engine.Counters.PathSwitchesToTcp);
        Assert.Equal(0, devices.A.Engine.Counters.PathSwitchesToUdp);

        // Logged, but not once per connection: the first of each reason, then at most one line a second.
        var timedOut = logB.CountContaining("Tunnel closed a TCP fallback connection from [::ffff:127.0.1.");
        Assert.InRange(logB.CountContaining("no authenticated message within 8 s of connecting"), 1, 1 + (int)clock.Elapsed.TotalSeconds);
        Assert.Equal(1, logB.CountContaining("this source already holds 8 connections without an authenticated message"));
        Assert.True(timedOut < 30, $"{timedOut} lines for 30 closes");
    }

    [RequiresFact(OpenFiles = 4096)]
    public void AThousandJunkConnectionsFromFiftySources_APeersConnectionCarriesAtLeastNinetyPercent()
    {
        // 1,000 client sockets here and up to 2 x 256 + 20 accepted by B, all in this process. 50 sources share the 256
        // places about 5 each, under the 8 a source may hold: the strangers push each other out, oldest first.
        const int messages = 100;
        JunkConnections? junk = null;
        var logA = new RecordingLogger();
        using var devices = new DevicePair(IPAddress.Loopback, modeA: TcpFallbackMode.Only, startA: (configuration, tun) =>
        {
            junk = new JunkConnections(configuration.Peers[0].Endpoint!.Port, count: 1_000, sources: 50);
            return TunnelDevice.Start(configuration, tun, logger: logA);
        });
        var most = 0;
        using var watch = new Timer(_ => most = Math.Max(most, devices.B.TcpPaths.ListenerConnections), null, 0, 10);
        using var strangers = junk!;

        var clock = Stopwatch.StartNew();
        Assert.True(FirstPacketCrosses(devices), "no packet crossed over TCP with 1,000 junk connections open");
        var firstAt = clock.Elapsed;

        // A bounded sequence, 20 ms apart, while the flood reopens every stranger the listener closed once a second.
        var sent = Enumerable.Range(0, messages).Select(i => TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 100 + i)).ToArray();
        var delivered = new HashSet<int>();
        var nextFlood = TimeSpan.Zero;
        for (var i = 0; i < messages; i++)
        {
            if (clock.Elapsed >= nextFlood)
            {
                strangers.SendJunk(reconnect: true);
                nextFlood = clock.Elapsed + TimeSpan.FromSeconds(1);
            }

            devices.TunA.Inject(sent[i]);
            Take(devices, delivered, TimeSpan.FromMilliseconds(20));
        }

        var drain = Stopwatch.StartNew();
        while (sent.Count(packet => delivered.Contains(packet.Length)) < messages && drain.Elapsed < TimeSpan.FromSeconds(2))
        {
            Take(devices, delivered, TimeSpan.FromMilliseconds(100));
        }

        var carried = sent.Count(packet => delivered.Contains(packet.Length));
        var counters = devices.B.Engine.Counters;
        output.WriteLine(string.Create(
            CultureInfo.InvariantCulture,
            $"first packet {firstAt.TotalSeconds:F1} s after the flood; {carried}/{messages} delivered; strangers reopened {strangers.Reopened}; "
            + $"B closed {counters[TunnelDropReason.TcpSourceLimit]} at once (source limit), {counters[TunnelDropReason.TcpUnauthenticatedEvicted]} evicted, "
            + $"{counters[TunnelDropReason.TcpUnauthenticatedTimeout]} timed out; {counters[TunnelDropReason.Malformed]} junk frames refused; B held {most} at most"));
        output.WriteLine(string.Join(Environment.NewLine, logA.Entries));
        Assert.True(carried >= messages * 9 / 10, $"{carried} of {messages} delivered");
        Assert.True(counters[TunnelDropReason.TcpUnauthenticatedEvicted] > 0, "no stranger evicted");
        Assert.Equal(1, devices.A.Engine.Counters.PathSwitchesToTcp);
    }

    /// <summary>Whether <paramref name="expected"/> comes out of <paramref name="tun"/> in time; copies of the first packet, sent again until one crossed, are passed over.</summary>
    private static bool Delivered(MemoryTun tun, byte[] expected)
    {
        var clock = Stopwatch.StartNew();
        while (Left(clock, s_wait) is { } left && tun.TakeDelivered(left) is { } packet)
        {
            if (packet.AsSpan().SequenceEqual(expected))
            {
                return true;
            }

            Assert.Equal(s_firstPacket, packet);
        }

        return false;
    }

    private static bool FirstPacketCrosses(DevicePair devices)
    {
        var toB = s_firstPacket;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < s_wait)
        {
            // Packets sent before the connection is up have no route yet: send again until one arrives.
            devices.TunA.Inject(toB);
            if (devices.TunB.TakeDelivered(TimeSpan.FromMilliseconds(200)) is not null)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Takes what B delivered within <paramref name="wait"/>, by length (each message of the sequence has its own).</summary>
    private static void Take(DevicePair devices, HashSet<int> delivered, TimeSpan wait)
    {
        var until = Stopwatch.StartNew();
        while (Left(until, wait) is { } left && devices.TunB.TakeDelivered(left) is { } packet)
        {
            delivered.Add(packet.Length);
        }
    }

    /// <summary>
    /// What is left of <paramref name="wait"/>, or null once it is over: read once, because the clock reading twice
    /// (checked, then subtracted) went past the end in between on a loaded machine and made a negative timeout.
    /// </summary>
    private static TimeSpan? Left(Stopwatch clock, TimeSpan wait)
    {
        var left = wait - clock.Elapsed;
        return left > TimeSpan.Zero ? left : null;
    }
}
