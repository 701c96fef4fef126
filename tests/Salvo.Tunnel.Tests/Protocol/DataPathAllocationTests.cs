using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// Once a session is up, encrypting a packet and decrypting it on the other side allocates nothing: 50,000 packets
/// each way after a warm-up, measured with this thread's allocation counter in ten slices, every slice exactly zero
/// (an allocation per packet would show in all ten, one per thousand packets in most).
/// </summary>
public sealed class DataPathAllocationTests
{
    private const int WarmUp = 5_000;
    private const int Measured = 50_000;
    private const int Slices = 10;

    [Theory]
    [InlineData(64)]
    [InlineData(1_380)]
    public void SteadyStateEncryptAndDecrypt_BothWays_AllocateNothing(int payloadLength)
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        var fromAlice = TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.1", "198.19.0.2", payloadLength));
        var fromBob = TunnelPair.Batch(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1", payloadLength));
        var aliceOut = new SingleDatagramOutput();
        var bobOut = new SingleDatagramOutput();
        var aliceSource = pair.AliceSource;
        var bobSource = DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint);

        void RoundTrip()
        {
            pair.Alice.SendPackets(fromAlice, aliceOut);
            pair.Bob.ReceiveDatagram(aliceOut.Datagram, aliceSource, bobOut);
            pair.Bob.SendPackets(fromBob, bobOut);
            pair.Alice.ReceiveDatagram(bobOut.Datagram, bobSource, aliceOut);
        }

        var slices = AllocationSlices.Measure(RoundTrip, WarmUp, Measured, Slices);

        Assert.True(slices.All(bytes => bytes == 0), $"bytes allocated per slice of {Measured / Slices} round trips: {string.Join(", ", slices)}");
        Assert.Equal(WarmUp + Measured + 1, pair.Bob.Counters.PacketsReceived);
        Assert.Equal(WarmUp + Measured + 1, pair.Alice.Counters.PacketsReceived);
        Assert.Equal(0, pair.Alice.Counters.TotalDropped + pair.Bob.Counters.TotalDropped);
    }

    /// <summary>An output with one reusable datagram buffer, so the measurement sees only the engine's allocations.</summary>
    private sealed class SingleDatagramOutput : ITunnelOutput
    {
        private readonly byte[] _buffer = new byte[2048];
        private int _length;

        public Span<byte> Datagram => _buffer.AsSpan(0, _length);

        public Span<byte> AddDatagram(int length, DatagramAddress destination)
        {
            _length = length;
            return _buffer.AsSpan(0, length);
        }

        public void WritePacket(ReadOnlySpan<byte> packet)
        {
        }
    }
}
