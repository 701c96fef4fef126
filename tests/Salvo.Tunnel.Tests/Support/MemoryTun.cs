using System.Collections.Concurrent;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>A TUN device in memory: tests inject packets for the tunnel to send and take the packets it delivers.</summary>
internal sealed class MemoryTun(string name) : ITunDevice
{
    private readonly BlockingCollection<byte[]> _toSend = [];
    private readonly BlockingCollection<byte[]> _delivered = [];

    private long _packetsTooLarge;

    public string Name => name;

    /// <summary>The MTU the "interface" reports; tests change it under a running tunnel as <c>ip link set mtu</c> would. 0: none reported.</summary>
    public int Mtu { get; set; }

    /// <summary>Injected packets that did not fit the tunnel's batch buffers, as a kernel TUN device counts them.</summary>
    public long PacketsTooLarge => Interlocked.Read(ref _packetsTooLarge);

    /// <summary>A packet the "kernel" hands to the tunnel, as if an application sent it.</summary>
    public void Inject(byte[] packet) => _toSend.Add(packet);

    /// <summary>The next packet the tunnel delivered, or null when none came within <paramref name="timeout"/>.</summary>
    public byte[]? TakeDelivered(TimeSpan timeout) => _delivered.TryTake(out var packet, timeout) ? packet : null;

    public int ReadBatch(PacketBatch batch, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(batch);
        batch.Clear();
        if (!_toSend.TryTake(out var packet, timeout))
        {
            return 0;
        }

        do
        {
            if (!batch.TryAdd(packet))
            {
                Interlocked.Increment(ref _packetsTooLarge);
            }
        }
        while (!batch.IsFull && _toSend.TryTake(out packet));

        return batch.Count;
    }

    public bool Write(ReadOnlySpan<byte> packet)
    {
        _delivered.Add(packet.ToArray());
        return true;
    }

    public void Dispose()
    {
        _toSend.Dispose();
        _delivered.Dispose();
    }
}
