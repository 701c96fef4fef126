namespace Salvo.Tunnel.Protocol;

/// <summary>
/// What one direction of the data path did for one peer during one batch, outside the engine's lock: datagrams and
/// packets moved, the newest key and counter used. The engine applies it to the peer's timers and counts once per
/// batch under the lock, so encryption and decryption never wait for each other. Only the thread that owns the
/// direction (it holds that direction's gate) touches it.
/// </summary>
internal sealed class PeerTally
{
    public bool IsListed { get; set; }

    public Keypair? Keypair { get; private set; }

    public ulong HighestCounter { get; private set; }

    public long DatagramBytes { get; private set; }

    public long Packets { get; private set; }

    public long PacketBytes { get; private set; }

    /// <summary>Whether any datagram carried data (not only keepalives).</summary>
    public bool CarriedData { get; private set; }

    /// <summary>Where the newest datagram came from (receive direction): the path the peer was last heard on.</summary>
    public DatagramAddress Source { get; private set; }

    public void AddDatagram(Keypair keypair, ulong counter, int datagramLength, bool carriedData, DatagramAddress source = default)
    {
        Keypair = keypair;
        Source = source;
        HighestCounter = Math.Max(HighestCounter, counter);
        DatagramBytes += datagramLength;
        CarriedData |= carriedData;
    }

    public void AddPacket(int length)
    {
        Packets++;
        PacketBytes += length;
    }

    public void Clear()
    {
        IsListed = false;
        Keypair = null;
        HighestCounter = 0;
        DatagramBytes = 0;
        Packets = 0;
        PacketBytes = 0;
        CarriedData = false;
        Source = default;
    }
}
