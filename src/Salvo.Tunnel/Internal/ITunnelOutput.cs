namespace Salvo.Tunnel;

/// <summary>
/// Where the engine puts what it produces: datagrams for the UDP socket and plaintext packets for the TUN device.
/// The device loop maps these onto its send batch and TUN write batch; tests collect them in lists.
/// </summary>
internal interface ITunnelOutput
{
    /// <summary>Reserves a datagram of <paramref name="length"/> bytes to <paramref name="destination"/>; the engine fills the span at once.</summary>
    Span<byte> AddDatagram(int length, DatagramAddress destination);

    /// <summary>Hands over a decrypted, authenticated IP packet for the TUN device; the span is valid only during the call.</summary>
    void WritePacket(ReadOnlySpan<byte> packet);
}
