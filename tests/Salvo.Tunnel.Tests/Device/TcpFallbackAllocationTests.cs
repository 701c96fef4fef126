using System.Net;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;
using Xunit.Abstractions;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// Once the TCP fallback carries a session, its send path (seal, frame, write) and receive path (read, unframe, open,
/// write to the device) allocate nothing per packet: two running devices on loopback, every message over TCP, packets
/// both ways at once from devices that allocate nothing themselves, and the whole process's allocations counted.
/// </summary>
[Collection(TcpFallbackDevicesCollection.Name)]
public sealed class TcpFallbackAllocationTests(ITestOutputHelper output)
{
    private const int PacketsPerRound = 20_000;

    // The least of three rounds, in bytes per packet (both ways counted): one-off costs (tiered JIT, thread-pool growth,
    // the runtime's own timers) land in one round, while an allocation per packet or per batch shows in all three.
    // 16 is below the smallest object (24 bytes) spread over every packet, and above the background of a quiet process.
    private const double MaxBytesPerPacket = 16;

    [Fact]
    public void SteadyStateBothWaysOverTcp_AllocatesNothingPerPacket()
    {
        var flow = new Flow();
        using var devices = new DevicePair(
            IPAddress.Loopback,
            TcpFallbackMode.Only,
            startA: (configuration, _) => TunnelDevice.Start(configuration, flow.TunA),
            startB: (configuration, _) => TunnelDevice.Start(configuration, flow.TunB));
        Assert.True(flow.Run(10, TimeSpan.FromSeconds(30)), "the first packets did not cross the TCP fallback in 30 s");
        flow.Run(PacketsPerRound, TimeSpan.FromSeconds(60)); // warm-up

        var allocated = long.MaxValue;
        for (var round = 0; round < 3; round++)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            Assert.True(flow.Run(PacketsPerRound, TimeSpan.FromSeconds(60)), $"round {round} did not finish in 60 s");
            allocated = Math.Min(allocated, GC.GetTotalAllocatedBytes(precise: true) - before);
        }

        var perPacket = (double)allocated / (2 * PacketsPerRound);
        output.WriteLine($"{allocated:N0} bytes allocated for {2 * PacketsPerRound:N0} packets ({perPacket:F2} per packet); TCP send drops A {devices.A.TcpSendDrops}, B {devices.B.TcpSendDrops}");
        Assert.Equal(TunnelPath.Tcp, devices.A.Engine.GetPeers()[0].Path);
        Assert.InRange(perPacket, 0, MaxBytesPerPacket);
    }

    /// <summary>Both devices' TUN ends, sending each other packets with a window of <see cref="Window"/> in flight each way.</summary>
    private sealed class Flow
    {
        private const int Window = 64;

        public Flow()
        {
            TunA = new PacedTun("a", TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", 1_380));
            TunB = new PacedTun("b", TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", 1_380));
            TunA.Peer = TunB;
            TunB.Peer = TunA;
        }

        public PacedTun TunA { get; }

        public PacedTun TunB { get; }

        /// <summary>
        /// Lets <paramref name="count"/> more packets go each way and waits until they were delivered; packets a full
        /// queue dropped are sent again after a pause (the window would otherwise wait for them for ever).
        /// </summary>
        public bool Run(int count, TimeSpan limit)
        {
            var deadline = Environment.TickCount64 + (long)limit.TotalMilliseconds;
            TunA.Allow(count);
            TunB.Allow(count);
            var stalledSince = Environment.TickCount64;
            var last = TunA.Delivered + TunB.Delivered;
            while (TunA.Pending > 0 || TunB.Pending > 0)
            {
                if (Environment.TickCount64 > deadline)
                {
                    return false;
                }

                Thread.Sleep(5);
                var now = TunA.Delivered + TunB.Delivered;
                if (now != last)
                {
                    (last, stalledSince) = (now, Environment.TickCount64);
                }
                else if (Environment.TickCount64 - stalledSince > 200)
                {
                    TunA.ForgetInFlight();
                    TunB.ForgetInFlight();
                    stalledSince = Environment.TickCount64;
                }
            }

            return true;
        }

        /// <summary>A TUN device that hands the tunnel copies of one packet while fewer than the window are undelivered, and counts what the tunnel writes.</summary>
        internal sealed class PacedTun(string name, byte[] packet) : ITunDevice
        {
            private long _allowed;
            private long _released;
            private long _delivered;
            private long _forgotten;

            public string Name => name;

            public PacedTun Peer { get; set; } = null!;

            /// <summary>Packets this device wrote: those the peer's device sent.</summary>
            public long Delivered => Interlocked.Read(ref _delivered);

            /// <summary>Packets allowed and not yet delivered at the peer.</summary>
            public long Pending => Interlocked.Read(ref _allowed) - Interlocked.Read(ref Peer._delivered) - Interlocked.Read(ref _forgotten);

            public void Allow(int count) => Interlocked.Add(ref _allowed, count);

            /// <summary>Takes the packets in flight as lost, so that the window opens again.</summary>
            public void ForgetInFlight()
            {
                var inFlight = Interlocked.Read(ref _released) - Peer.Delivered - Interlocked.Read(ref _forgotten);
                Interlocked.Add(ref _forgotten, Math.Max(0, inFlight));
            }

            public int ReadBatch(PacketBatch batch, TimeSpan timeout)
            {
                batch.Clear();
                var deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
                while (true)
                {
                    var inFlight = Interlocked.Read(ref _released) - Peer.Delivered - Interlocked.Read(ref _forgotten);
                    var left = Interlocked.Read(ref _allowed) - Interlocked.Read(ref _released);
                    var room = Math.Min(Window - inFlight, left);
                    if (room > 0)
                    {
                        while (room-- > 0 && batch.TryAdd(packet))
                        {
                            Interlocked.Increment(ref _released);
                        }

                        return batch.Count;
                    }

                    if (Environment.TickCount64 >= deadline)
                    {
                        return 0;
                    }

                    Thread.Sleep(1);
                }
            }

            public bool Write(ReadOnlySpan<byte> delivered)
            {
                Interlocked.Increment(ref _delivered);
                return true;
            }

            public void Dispose()
            {
            }
        }
    }
}
