using Salvo.Tunnel;

namespace Salvo.WireGuard.Tests.Metrics;

/// <summary>A TUN that never has a packet: the tunnel's UDP side runs as it does on a real interface, with no root.</summary>
internal sealed class IdleTun(string name) : ITunDevice
{
    public string Name => name;

    public int ReadBatch(PacketBatch batch, TimeSpan timeout)
    {
        Thread.Sleep(timeout < TimeSpan.FromMilliseconds(50) ? timeout : TimeSpan.FromMilliseconds(50));
        return 0;
    }

    public bool Write(ReadOnlySpan<byte> packet) => true;

    public void Dispose()
    {
    }
}
