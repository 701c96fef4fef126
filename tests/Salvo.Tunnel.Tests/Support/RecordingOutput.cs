namespace Salvo.Tunnel.Tests.Support;

/// <summary>Keeps every datagram and packet an engine produced, in order.</summary>
internal sealed class RecordingOutput : ITunnelOutput
{
    public List<(byte[] Bytes, DatagramAddress Destination)> Datagrams { get; } = [];

    public List<byte[]> Packets { get; } = [];

    public Span<byte> AddDatagram(int length, DatagramAddress destination)
    {
        var bytes = new byte[length];
        Datagrams.Add((bytes, destination));
        return bytes;
    }

    public void WritePacket(ReadOnlySpan<byte> packet) => Packets.Add(packet.ToArray());

    public List<(byte[] Bytes, DatagramAddress Destination)> TakeDatagrams()
    {
        var taken = Datagrams.ToList();
        Datagrams.Clear();
        return taken;
    }
}
