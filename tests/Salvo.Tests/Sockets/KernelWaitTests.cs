using System.Diagnostics;
using System.Net;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Sockets;

/// <summary>
/// Blocking receives on the Linux backend wait inside recvmmsg (one system call per wake-up) while the descriptor
/// blocks, and in poll(2) once the runtime has made it non-blocking.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class KernelWaitTests
{
    private static DatagramSocket Open() => new(new DatagramSocketOptions
    {
        LocalEndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Backend = DatagramBackend.LinuxBatched,
    });

    /// <summary>An idle 100 ms receive returns nothing, and not before its time.</summary>
    private static void ReceiveTimesOut(DatagramSocket socket, ReceiveBatch batch)
    {
        var clock = Stopwatch.StartNew();
        Assert.Equal(0, socket.Receive(batch, TimeSpan.FromMilliseconds(100)));
        Assert.True(clock.ElapsedMilliseconds >= 90, $"returned after {clock.ElapsedMilliseconds} ms");
    }

    [LinuxFact]
    public async Task BlockingReceive_OnAFreshSocket_WaitsInsideRecvmmsg_AndStillGetsData()
    {
        using var socket = Open();
        using var peer = Open();
        var pal = (LinuxDatagramPal)socket.Pal;
        var batch = new ReceiveBatch(capacity: 4, bufferSize: 64);
        ReceiveTimesOut(socket, batch);

        var arriving = Task.Run(() => socket.Receive(batch, TimeSpan.FromSeconds(5)));
        await Task.Delay(50);
        await peer.SendToAsync(new byte[] { 9 }, socket.LocalAddress);
        Assert.Equal(1, await arriving.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Equal(new byte[] { 9 }, batch[0].Payload.ToArray());
        Assert.Equal(0, pal.PollWaitsForTesting);
    }

    [LinuxFact]
    public async Task BlockingReceive_AfterAnAsyncOne_WaitsInPoll_AndKeepsItsTimeout()
    {
        using var socket = Open();
        using var peer = Open();
        var pal = (LinuxDatagramPal)socket.Pal;
        var batch = new ReceiveBatch(capacity: 4, bufferSize: 64);

        // The async receive parks on the runtime's engine, which sets O_NONBLOCK on the descriptor for good.
        var pending = socket.ReceiveAsync(batch).AsTask();
        await peer.SendToAsync(new byte[] { 1 }, socket.LocalAddress);
        Assert.Equal(1, await pending.WaitAsync(TimeSpan.FromSeconds(5)));

        ReceiveTimesOut(socket, batch);
        Assert.InRange(pal.PollWaitsForTesting, 1, 10);
    }
}
