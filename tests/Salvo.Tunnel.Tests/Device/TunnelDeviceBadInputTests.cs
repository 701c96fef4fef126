using System.Net;
using System.Net.Sockets;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// Bad input sent to a running <see cref="TunnelDevice"/> over loopback UDP: each datagram is dropped and counted by
/// reason, nothing forged reaches the device, and the tunnel carries the next packet.
/// </summary>
public sealed class TunnelDeviceBadInputTests
{
    [Fact]
    public void ReplayedDataPacket_IsCountedAsReplay_AndNotDelivered()
    {
        using var tunnels = new LoopbackTunnels();
        tunnels.AssertCarries(payloadLength: 100);

        tunnels.Relay.SendToTarget(tunnels.Relay.LastTransport!);
        tunnels.Relay.SendToTarget(tunnels.Relay.LastTransport!);

        tunnels.AssertCarries(payloadLength: 101);
        Assert.Equal(2, tunnels.B.Engine.Counters[TunnelDropReason.Replayed]);
        Assert.Contains(tunnels.LoggerB.Entries, e => e.Contains("counter already seen", StringComparison.Ordinal));
    }

    [Fact]
    public async Task OneFlippedByte_IsCountedAsDecryptionFailure_TheIntactMessageStillArrives()
    {
        using var tunnels = new LoopbackTunnels();
        tunnels.AssertCarries(payloadLength: 100);
        var held = tunnels.Relay.HoldNextTransport();
        var packet = LoopbackTunnels.Inject(tunnels.TunA, "198.19.0.1", payloadLength: 102);
        var message = await held.WaitAsync(TimeSpan.FromSeconds(15));

        var forged = message.ToArray();
        forged[40] ^= 0x01;
        tunnels.Relay.SendToTarget(forged);
        tunnels.Relay.SendToTarget(message);

        // The forgery did not burn the counter: the genuine message with the same counter is delivered.
        tunnels.AssertNextDeliveredIs(packet);
        Assert.Equal(1, tunnels.B.Engine.Counters[TunnelDropReason.DecryptionFailed]);
        tunnels.AssertCarries(payloadLength: 103);
    }

    [Fact]
    public void TruncatedMessagesAndUnknownType_AreCountedAsMalformed()
    {
        using var tunnels = new LoopbackTunnels();
        tunnels.AssertCarries(payloadLength: 100);

        tunnels.Relay.SendToTarget(tunnels.Relay.LastTransport.AsSpan(0, 20));
        tunnels.Relay.SendToTarget(tunnels.Relay.LastInitiation.AsSpan(0, 100));
        var unknownType = tunnels.Relay.LastInitiation!.ToArray();
        unknownType[0] = 9;
        tunnels.Relay.SendToTarget(unknownType);

        tunnels.AssertCarries(payloadLength: 101);
        Assert.Equal(3, tunnels.B.Engine.Counters[TunnelDropReason.Malformed]);
    }

    [Fact]
    public void ReplayedInitiation_IsCountedAsStaleTimestamp_SessionUnharmed()
    {
        using var tunnels = new LoopbackTunnels();
        tunnels.AssertCarries(payloadLength: 100);

        tunnels.Relay.SendToTarget(tunnels.Relay.LastInitiation!);

        tunnels.AssertCarries(payloadLength: 101);

        // The handshake thread refuses it, on its own time: the data after it does not wait for it.
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (tunnels.B.Engine.Counters[TunnelDropReason.StaleTimestamp] == 0 && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(5);
        }

        Assert.Equal(1, tunnels.B.Engine.Counters[TunnelDropReason.StaleTimestamp]);
        Assert.Equal(1, tunnels.B.Engine.Counters.HandshakesAnswered);
        Assert.Contains(tunnels.LoggerB.Entries, e => e.Contains("timestamp is not newer", StringComparison.Ordinal));
    }

    [Fact]
    public async Task InitiationFlood_StartsCookieReplies_RateLimitsTheSource_ARealPeerStillGetsThrough()
    {
        using var tunnels = new LoopbackTunnels();
        tunnels.AssertCarries(payloadLength: 100);
        using var flooder = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        // Its own address: under load each IPv4 address has its own bucket, and the tunnels all use 127.0.0.1.
        flooder.Bind(new IPEndPoint(IPAddress.Parse("127.0.0.2"), 0));
        var initiation = tunnels.Relay.LastInitiation!;
        using var stop = new CancellationTokenSource();

        // About 2,000 initiations a second (20 every 10 ms), at most 15 s: far past the budget of 100 a second.
        var flood = Task.Run(() =>
        {
            for (var round = 0; round < 1_500 && !stop.IsCancellationRequested; round++)
            {
                for (var i = 0; i < 20; i++)
                {
                    flooder.SendTo(initiation, tunnels.EndPointB);
                }

                Thread.Sleep(10);
            }
        });
        WaitUntil(() => tunnels.B.Engine.IsUnderLoad);

        // C's first initiation gets a cookie reply; its retransmission carries MAC2 and is answered under load.
        var fromC = LoopbackTunnels.Inject(tunnels.TunC, "198.19.0.3", payloadLength: 104);
        tunnels.AssertNextDeliveredIs(fromC);
        // C can get through before the flood has run long: let it pass its bucket well before stopping it.
        WaitUntil(() => tunnels.B.Engine.Counters[TunnelDropReason.HandshakeRateLimited] > 100);
        await stop.CancelAsync();
        await flood;
        // What the flood left in the handshake queue is counted once the handshake thread has served it.
        WaitUntil(() => tunnels.B.Handshakes.Queue.Count == 0);

        var counters = tunnels.B.Engine.Counters;
        // One source past its bucket (5 at once, 20 a second) is refused without a reply; the rest got cookies.
        Assert.True(counters[TunnelDropReason.HandshakeRateLimited] > 100, $"{counters[TunnelDropReason.HandshakeRateLimited]} refused");
        Assert.InRange(counters[TunnelDropReason.CookieRequired], 1, 5 + (20 * 16));
        Assert.Equal(counters[TunnelDropReason.CookieRequired], counters.CookieRepliesSent);
        Assert.Equal(2, counters.HandshakesAnswered);
        var reply = new byte[256];
        flooder.ReceiveTimeout = 5_000;
        Assert.Equal(64, flooder.Receive(reply));
        Assert.Equal(3, reply[0]);
        Assert.Contains(tunnels.LoggerB.Entries, e => e.Contains("under load", StringComparison.Ordinal));
        tunnels.AssertCarries(payloadLength: 101);
    }

    /// <summary>Polls <paramref name="condition"/> every 10 ms, 15 s at most.</summary>
    private static void WaitUntil(Func<bool> condition)
    {
        for (var i = 0; i < 1_500 && !condition(); i++)
        {
            Thread.Sleep(10);
        }

        Assert.True(condition());
    }
}
