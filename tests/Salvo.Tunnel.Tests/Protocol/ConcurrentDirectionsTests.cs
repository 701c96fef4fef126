using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// The two directions of the data path do not wait for each other: while Alice's sending thread is stopped inside the
/// data path (in the middle of sealing a packet into its output), her receiving thread still opens and delivers
/// Bob's packet. With one lock around all of the engine the receive waited for the send to finish.
/// </summary>
public sealed class ConcurrentDirectionsTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task ReceiveDatagram_WhileSendPacketsIsMidSeal_CompletesWithoutWaitingForIt()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 100));
        var (fromBob, _) = Assert.Single(pair.BobOut.TakeDatagrams());
        using var stalled = new StalledOutput();
        var received = new RecordingOutput();

        var sending = Task.Run(() => pair.Alice.SendPackets(TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 100)), stalled));
        Assert.True(stalled.Entered.Wait(Bound), "the send never reached its output");
        var receiving = Task.Run(() => pair.Alice.ReceiveDatagram(fromBob, DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint), received));
        var receivedWhileSending = await Task.WhenAny(receiving, Task.Delay(Bound)) == receiving;
        stalled.Release.Set();
        await sending.WaitAsync(Bound);
        await receiving.WaitAsync(Bound);

        Assert.True(receivedWhileSending, "the receive waited for the stalled send");
        Assert.Single(received.Packets);
        Assert.Equal(1, pair.Alice.Counters.PacketsSent - 1);
    }

    /// <summary>An output whose first datagram blocks the sending thread until released.</summary>
    private sealed class StalledOutput : ITunnelOutput, IDisposable
    {
        private readonly byte[] _datagram = new byte[2048];

        public ManualResetEventSlim Entered { get; } = new();

        public ManualResetEventSlim Release { get; } = new();

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            Entered.Set();

            // Twice the bound the test gives the receive, so a receive stuck behind this send loses that race for sure.
            Release.Wait(2 * Bound);
            return _datagram.AsSpan(0, length);
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
        }

        public void Dispose()
        {
            Entered.Dispose();
            Release.Dispose();
        }
    }
}
