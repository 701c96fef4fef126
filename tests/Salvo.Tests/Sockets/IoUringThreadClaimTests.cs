using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Sockets;

/// <summary>
/// The public opt-in of a dedicated receive thread (<see cref="DatagramSocket.ClaimReceivesForThisThread"/>): on io_uring
/// the thread receives on a ring of its own, and ending the claim frees that ring.
/// </summary>
public sealed class IoUringThreadClaimTests
{
    private static DatagramSocket Open(DatagramBackend backend) => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Backend = backend,
        Gso = false,
    });

    [RequiresFact(Requirement.IoUring)]
    [SupportedOSPlatform("linux")]
    public void ClaimBeforeTheFirstReceive_ReceivesOnTheThreadsOwnRing_AndItsDisposeFreesTheRing()
    {
        using var socket = Open(DatagramBackend.IoUring);
        using var sender = Open(DatagramBackend.LinuxBatched);
        var ownRing = false;
        var received = 0;
        var drivenWhileClaimed = false;
        var drivenAfterDispose = true;
        IoUringEngine? engine = null;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                using (var claim = socket.ClaimReceivesForThisThread())
                {
                    ownRing = claim.OwnRing;
                    engine = ((IoUringDatagramPal)socket.Pal).Receiver?.Engine;
                    SendEight(sender, socket);
                    var batch = new ReceiveBatch(capacity: 64, bufferSize: 64);
                    for (var wait = 0; received < 8 && wait < 100; wait++)
                    {
                        received += socket.Receive(batch, TimeSpan.FromMilliseconds(50));
                    }

                    drivenWhileClaimed = socket.IsReceivingOnThisThreadsRing;
                }

                drivenAfterDispose = socket.IsReceivingOnThisThreadsRing;
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the claiming thread did not end");
        Assert.Null(failure);
        Assert.True(ownRing, "the claim did not give the socket the thread's own ring");
        Assert.Equal(8, received);
        Assert.True(drivenWhileClaimed, "the receives did not run on the thread's own ring");
        Assert.NotNull(engine);
        Assert.True(engine.IsReleased, "disposing the claim kept the thread's ring");
        Assert.False(drivenAfterDispose);
    }

    [RequiresFact(Requirement.IoUring)]
    [SupportedOSPlatform("linux")]
    public void ClaimAfterTheSocketReceived_KeepsTheSharedRing_AndTheSocketGoesOnReceiving()
    {
        using var socket = Open(DatagramBackend.IoUring);
        using var sender = Open(DatagramBackend.LinuxBatched);
        var batch = new ReceiveBatch(capacity: 64, bufferSize: 64);
        Assert.Equal(0, socket.Receive(batch, TimeSpan.Zero));

        using var claim = socket.ClaimReceivesForThisThread();
        Assert.False(claim.OwnRing, "a socket that had received on a shared ring moved to the thread's");
        SendEight(sender, socket);
        var received = 0;
        for (var wait = 0; received < 8 && wait < 100; wait++)
        {
            received += socket.Receive(batch, TimeSpan.FromMilliseconds(50));
        }

        Assert.Equal(8, received);
    }

    [RequiresFact(Requirement.IoUring)]
    [SupportedOSPlatform("linux")]
    public void ClaimDisposedOnAnotherThread_Throws_AndLeavesTheRingToItsThread()
    {
        using var socket = Open(DatagramBackend.IoUring);
        ReceiveThreadClaim? claim = null;
        IoUringEngine? engine = null;
        using var claimed = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var thread = new Thread(() =>
        {
            claim = socket.ClaimReceivesForThisThread();
            engine = ((IoUringDatagramPal)socket.Pal).Receiver?.Engine;
            claimed.Set();
            release.Wait(TimeSpan.FromSeconds(10));
            claim.Dispose();
        });
        thread.Start();
        try
        {
            Assert.True(claimed.Wait(TimeSpan.FromSeconds(10)), "the thread did not claim the socket");
            var error = Assert.Throws<InvalidOperationException>(claim!.Dispose);
            Assert.Contains("thread", error.Message, StringComparison.Ordinal);
            Assert.False(engine!.IsReleased, "a dispose on the wrong thread freed the ring");
        }
        finally
        {
            release.Set();
            Assert.True(thread.Join(TimeSpan.FromSeconds(10)), "the claiming thread did not end");
        }

        Assert.True(engine.IsReleased, "the dispose on the claiming thread kept the ring");
    }

    [Theory]
    [InlineData(DatagramBackend.Portable)]
    [InlineData(DatagramBackend.Auto)]
    public void ClaimOnABackendWithoutRings_HasNoOwnRing_AndReceivesAsBefore(DatagramBackend backend)
    {
        using var socket = Open(backend);
        using var sender = Open(backend);
        using var claim = socket.ClaimReceivesForThisThread();
        Assert.False(claim.OwnRing);
        SendEight(sender, socket);
        var batch = new ReceiveBatch(capacity: 64, bufferSize: 64);
        var received = 0;
        for (var wait = 0; received < 8 && wait < 100; wait++)
        {
            received += socket.Receive(batch, TimeSpan.FromMilliseconds(50));
        }

        Assert.Equal(8, received);
    }

    [Fact]
    public void ClaimOnADisposedSocket_Throws()
    {
        var socket = Open(DatagramBackend.Auto);
        socket.Dispose();
        Assert.Throws<ObjectDisposedException>(socket.ClaimReceivesForThisThread);
    }

    private static void SendEight(DatagramSocket sender, DatagramSocket receiver)
    {
        var batch = new SendBatch(capacity: 8, maxDatagramSize: 8);
        for (var i = 0; i < 8; i++)
        {
            batch.Add(new byte[8], receiver.LocalAddress);
        }

        Assert.Equal(8, sender.Send(batch));
    }
}
