using System.Net;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// Packets longer than the configured MTU (1,420) cross two running devices intact, in both directions, and leave
/// both running: the devices follow the MTU their interfaces report, at start and when it changes, up to the largest
/// packet one WireGuard datagram carries (65,475 bytes); a longer one is dropped and counted, never thrown.
/// </summary>
public sealed class LargePacketTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);

    [Theory]
    [InlineData(1_500)]
    [InlineData(9_000)]
    public void PacketsLongerThanTheConfiguredMtu_CrossBothWaysIntact(int interfaceMtu)
    {
        using var devices = new DevicePair(IPAddress.Loopback, interfaceMtu: interfaceMtu);
        int[] sizes = [.. Enumerable.Range(1_421, 80), 1_500, interfaceMtu];

        foreach (var size in sizes.Where(size => size <= interfaceMtu))
        {
            AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", size);
            AssertCrosses(devices.TunB, devices.TunA, "198.19.0.2", "198.19.0.1", size);
        }

        AssertNothingLost(devices);
    }

    [Fact]
    public void InterfaceMtuRaisedWhileRunning_IsFollowedWithinATick()
    {
        using var devices = new DevicePair(IPAddress.Loopback);
        AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", 1_400);

        devices.TunA.Mtu = 9_000;
        devices.TunB.Mtu = 9_000;
        WaitFor(() => devices.A.Engine.Mtu == 9_000 && devices.B.Engine.Mtu == 9_000);

        AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", 9_000);
        AssertCrosses(devices.TunB, devices.TunA, "198.19.0.2", "198.19.0.1", 8_999);
        AssertNothingLost(devices);
    }

    [Fact]
    public void LargestInterfaceMtu_CarriesTheLargestPacketAndDropsLongerOnesCounted()
    {
        var logger = new RecordingLogger();
        using var devices = new DevicePair(
            IPAddress.Loopback,
            startA: (configuration, tun) => TunnelDevice.Start(configuration, tun, logger: logger),
            interfaceMtu: 65_535);

        AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", 65_475);
        AssertCrosses(devices.TunB, devices.TunA, "198.19.0.2", "198.19.0.1", 65_475);

        devices.TunA.Inject(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 65_476 - 20));
        devices.TunA.Inject(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 65_535 - 20));
        WaitFor(() => devices.A.Engine.Counters[TunnelDropReason.PacketTooLarge] == 2);

        // Still running: the next packet crosses.
        AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", 1_500);
        Assert.True(logger.CountContaining("packet longer than one WireGuard datagram carries") >= 1, "the drop was not logged");
        Assert.Equal(0, devices.A.Engine.Counters[TunnelDropReason.InternalError]);
    }

    [Fact]
    public void PacketLongerThanTheBatchBuffers_IsCountedAsTooLarge()
    {
        // The interface reports no MTU, so the slots are the configured 1,420: a 1,500-byte packet cannot be read into
        // them (a kernel device counts it so when the MTU was raised between two looks).
        using var devices = new DevicePair(IPAddress.Loopback);

        devices.TunA.Inject(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 1_480));
        WaitFor(() => devices.A.Engine.Counters[TunnelDropReason.PacketTooLarge] == 1);

        AssertCrosses(devices.TunA, devices.TunB, "198.19.0.1", "198.19.0.2", 1_420);
    }

    internal static void AssertCrosses(MemoryTun from, MemoryTun to, string source, string destination, int size, byte[]? skip = null)
    {
        var packet = TunnelPair.IPv4Packet(source, destination, size - 20);
        from.Inject(packet);
        var delivered = to.TakeDelivered(s_patience);
        while (skip is not null && delivered is not null && delivered.AsSpan().SequenceEqual(skip))
        {
            delivered = to.TakeDelivered(s_patience);
        }

        Assert.Equal(packet, delivered);
    }

    private static void AssertNothingLost(DevicePair devices)
    {
        foreach (var device in new[] { devices.A, devices.B })
        {
            Assert.Equal(0, device.Engine.Counters.TotalDropped);
        }

        Assert.Equal(0, devices.TunA.PacketsTooLarge);
        Assert.Equal(0, devices.TunB.PacketsTooLarge);
    }

    private static void WaitFor(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the condition did not hold in time");
            Thread.Sleep(10);
        }
    }
}
