using System.Net;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// An unexpected exception inside one round of a data loop (a bug, not a failed receive) ends neither the loop nor the
/// process: the round's batch is dropped and counted as <see cref="TunnelDropReason.InternalError"/>, the error is
/// logged once a second at most, and the loop carries the next packets.
/// </summary>
public sealed class LoopErrorTests
{
    // One failure each: the once-a-second rate limit is ReceiveErrorPolicy's, tested with the library; two failures a
    // second apart on a loaded machine would each be logged.
    private const string LoopErrorLine = "loop dropped the batch it held after an unexpected error; the loop goes on (0 more";
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);

    [Fact]
    public void OutboundLoop_RoundThrows_IsCountedAndTheLoopGoesOn()
    {
        var logger = new RecordingLogger();
        using var devices = new DevicePair(
            IPAddress.Loopback,
            startA: (configuration, tun) => TunnelDevice.Start(configuration, new FailingReads(tun, failures: 1, () => new InvalidOperationException("injected")), logger: logger));

        devices.AssertCarriesBothWays(s_patience);

        Assert.Equal(1, devices.A.Engine.Counters[TunnelDropReason.InternalError]);
        Assert.Equal(1, logger.CountContaining("the outbound (device to network) " + LoopErrorLine));
        Assert.Null(devices.A.LoopFailure);
    }

    [Fact]
    public void InboundLoop_RoundThrows_IsCountedAndTheLoopGoesOn()
    {
        var logger = new RecordingLogger();
        var calls = 0;
        int Receive(DatagramSocket socket, ReceiveBatch batch, TimeSpan timeout) =>
            Interlocked.Increment(ref calls) <= 1 ? throw new InvalidOperationException("injected") : socket.Receive(batch, timeout);
        using var devices = new DevicePair(
            IPAddress.Loopback,
            startB: (configuration, tun) => TunnelDevice.Start(configuration, tun, time: null, logger, socketErrors: null, Receive));

        devices.AssertCarriesBothWays(s_patience);

        Assert.Equal(1, devices.B.Engine.Counters[TunnelDropReason.InternalError]);
        Assert.Equal(1, logger.CountContaining("the inbound (network to device) " + LoopErrorLine));
        Assert.Equal(0, devices.B.ReceiveErrors);
        Assert.Null(devices.B.LoopFailure);
    }
}
