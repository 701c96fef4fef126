using Salvo.Tunnel;

namespace Salvo.Fuzz.Targets;

/// <summary>Keeps what an engine sent and delivered during one input.</summary>
internal sealed class CapturingOutput : ITunnelOutput
{
    public List<byte[]> Datagrams { get; } = [];

    public int Packets { get; private set; }

    public Span<byte> AddDatagram(int length, DatagramAddress destination)
    {
        var bytes = new byte[length];
        Datagrams.Add(bytes);
        return bytes;
    }

    public void WritePacket(ReadOnlySpan<byte> packet) => Packets++;

    public List<byte[]> Take()
    {
        var taken = Datagrams.ToList();
        Datagrams.Clear();
        return taken;
    }
}
