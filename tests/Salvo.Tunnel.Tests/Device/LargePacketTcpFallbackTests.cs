using System.Net;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>Packets longer than the configured MTU (1,420) cross the TCP fallback intact both ways: its frames and receive buffers grow to fit.</summary>
[Collection(TcpFallbackDevicesCollection.Name)]
public sealed class LargePacketTcpFallbackTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);

    [Fact]
    public void PacketsLongerThanTheConfiguredMtu_CrossTheTcpFallbackBothWaysIntact()
    {
        // The TCP fallback's connections run on the thread pool, which the test host holds (see ThreadPoolFloor): seen
        // here as a 15 s wait for a frame while other test classes ran beside this one.
        ThreadPoolFloor.Raise();
        using var devices = new DevicePair(IPAddress.Loopback, TcpFallbackMode.Only, interfaceMtu: 9_000);
        var probe = TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 100);
        var deadline = DateTime.UtcNow + s_patience;
        byte[]? delivered = null;
        while (delivered is null && DateTime.UtcNow < deadline)
        {
            // Packets sent before the connection is up have no route yet (NoRoute): send again until one arrives.
            devices.TunA.Inject(probe);
            delivered = devices.TunB.TakeDelivered(TimeSpan.FromMilliseconds(200));
        }

        Assert.Equal(probe, delivered);
        // Counted from here: while the two ends connect, a message can meet the connection the other end's dial
        // replaces (a setup race under load, not a large packet refused); the sizes below must cost none.
        var dropsBefore = devices.A.TcpSendDrops + devices.B.TcpSendDrops;
        foreach (var size in new[] { 1_421, 1_452, 1_453, 1_500, 9_000 })
        {
            // Probes injected while the first was on its way may still arrive at B first: they are skipped.
            LargePacketTests.AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", size, skip: probe);
            LargePacketTests.AssertCrosses(devices.TunB, devices.TunA, "198.19.0.2", "198.19.0.1", size);
        }

        Assert.Equal(dropsBefore, devices.A.TcpSendDrops + devices.B.TcpSendDrops);
        foreach (var device in new[] { devices.A, devices.B })
        {
            Assert.Equal(0, device.Engine.Counters[TunnelDropReason.PacketTooLarge] + device.Engine.Counters[TunnelDropReason.InternalError]);
            Assert.Equal(TunnelPath.Tcp, device.Engine.GetPeers()[0].Path);
        }
    }
}
