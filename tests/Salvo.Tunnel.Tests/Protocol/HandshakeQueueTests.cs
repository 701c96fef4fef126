using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// The engine's batch path with a handshake queue: handshake messages are copied into the queue, not answered on
/// the receiving thread; a full queue drops and counts; a queue an eighth full puts the engine under load; and
/// queuing allocates nothing once warm.
/// </summary>
public sealed class HandshakeQueueTests
{
    [Fact]
    public void FullQueue_DropsAndCountsTheRest_WhileTheBatchsDataIsDelivered()
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var queue = new HandshakeQueue(capacity: 4);
        pair.Bob.UseHandshakeQueue(queue);
        using var loopback = new LoopbackBatch();
        var packet = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 40);
        pair.AliceSends(packet);
        var transport = Assert.Single(pair.AliceOut.TakeDatagrams()).Bytes;

        pair.Bob.ReceiveDatagrams(loopback.SendAndReceive([.. Enumerable.Repeat(JunkInitiation(), 10), transport]), pair.BobOut);

        Assert.Equal(packet, Assert.Single(pair.BobOut.Packets));
        Assert.Empty(pair.BobOut.Datagrams);
        Assert.Equal(4, queue.Count);
        Assert.Equal(6, pair.Bob.Counters[TunnelDropReason.HandshakeQueueFull]);
        Assert.Equal(0, pair.Bob.Counters[TunnelDropReason.InvalidMac1]);

        // Served later, by whoever serves the queue, with the engine's own checks.
        var message = new byte[MessageLayout.InitiationSize];
        int length;
        while ((length = queue.TryTake(message, out var source)) > 0)
        {
            pair.Bob.ServeHandshake(message.AsSpan(0, length), source, pair.BobOut);
        }

        Assert.Equal(4, pair.Bob.Counters[TunnelDropReason.InvalidMac1]);
    }

    [Fact]
    public void QueueAnEighthFull_PutsTheEngineUnderLoad_AnInitiationGetsACookieReply()
    {
        using var pair = new TunnelPair();
        var queue = new HandshakeQueue(capacity: 16);
        pair.Bob.UseHandshakeQueue(queue);
        Assert.True(queue.TryAdd(JunkInitiation(), default));
        Assert.False(pair.Bob.IsUnderLoad);

        Assert.True(queue.TryAdd(JunkInitiation(), default));
        Assert.True(pair.Bob.IsUnderLoad);
        pair.AliceSends(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2"));
        var initiation = Assert.Single(pair.AliceOut.TakeDatagrams()).Bytes;
        pair.Bob.ServeHandshake(initiation, pair.AliceSource, pair.BobOut);

        var reply = Assert.Single(pair.BobOut.TakeDatagrams()).Bytes;
        Assert.Equal(MessageType.CookieReply, MessageLayout.Classify(reply));
        Assert.Equal(1, pair.Bob.Counters[TunnelDropReason.CookieRequired]);
    }

    [Fact]
    public void QueuingABatchOfHandshakes_AllocatesNothingOnceWarm()
    {
        using var pair = new TunnelPair();
        var queue = new HandshakeQueue();
        pair.Bob.UseHandshakeQueue(queue);
        using var loopback = new LoopbackBatch();
        var batch = loopback.SendAndReceive([.. Enumerable.Repeat(JunkInitiation(), 32)]);
        var message = new byte[MessageLayout.InitiationSize];
        void Round()
        {
            pair.Bob.ReceiveDatagrams(batch, pair.BobOut);
            while (queue.TryTake(message, out _) > 0)
            {
            }
        }

        for (var i = 0; i < 10; i++)
        {
            Round();
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 200; i++)
        {
            Round();
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(210 * 32, pair.Bob.Counters.DatagramsInReceiveBatches);
    }

    /// <summary>148 bytes of type 1: an initiation by its size and type, with no MAC1 that holds.</summary>
    private static byte[] JunkInitiation()
    {
        var junk = new byte[MessageLayout.InitiationSize];
        MessageLayout.WriteType(junk, MessageType.Initiation);
        return junk;
    }
}
