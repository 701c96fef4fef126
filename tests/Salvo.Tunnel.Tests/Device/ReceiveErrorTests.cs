using System.Net;
using System.Net.Sockets;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// The tunnel's receive loops follow the library's <see cref="ReceiveErrorPolicy"/>: a receive that fails (from the UDP
/// socket or the TUN device) is counted, logged once per interval, followed by the policy's pause, and the loop goes on
/// carrying packets.
/// </summary>
public sealed class ReceiveErrorTests
{
    private const int Failures = 3;
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);

    [Fact]
    public void InboundLoop_SocketReceiveFails_IsCountedLoggedOnceBackedOffAndGoesOn()
    {
        var clock = new TimerRecordingClock();
        var logger = new RecordingLogger();
        var calls = 0;
        int Receive(DatagramSocket socket, ReceiveBatch batch, TimeSpan timeout) =>
            Interlocked.Increment(ref calls) <= Failures ? throw new SocketException((int)SocketError.NoBufferSpaceAvailable) : socket.Receive(batch, timeout);
        using var devices = new DevicePair(
            IPAddress.Loopback,
            startB: (configuration, tun) => TunnelDevice.Start(
                configuration, tun, time: null, logger, new ReceiveErrorPolicy(TimeSpan.FromHours(1), TimeSpan.FromMilliseconds(10), clock), Receive));

        devices.AssertCarriesBothWays(s_patience);

        Assert.Equal(Failures, devices.B.ReceiveErrors);
        Assert.Equal(1, logger.CountContaining("receiving from the UDP socket failed; the loop goes on (0 more"));
        Assert.Equal(Enumerable.Repeat(TimeSpan.FromMilliseconds(10), Failures), clock.Timers);
    }

    [Fact]
    public void OutboundLoop_DeviceReadFails_IsCountedLoggedBackedOffAndGoesOn()
    {
        var clock = new TimerRecordingClock();
        var logger = new RecordingLogger();
        using var devices = new DevicePair(
            IPAddress.Loopback,
            startA: (configuration, tun) => TunnelDevice.Start(configuration, new FailingReads(tun, failures: 1, () => new IOException("read from a failed: Input/output error")), clock, logger));

        devices.AssertCarriesBothWays(s_patience);

        // One failure: the rate limit of the default policy (one line a second) is the inbound test's and the policy's own.
        Assert.Equal(1, devices.A.ReceiveErrors);
        Assert.Equal(1, logger.CountContaining("receiving from the TUN device failed; the loop goes on (0 more"));
        Assert.Equal([ReceiveErrorPolicy.DefaultBackOffDelay], clock.Timers);
    }
}
