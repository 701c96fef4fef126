namespace Salvo.Tunnel;

/// <summary>
/// Where the engine puts what it produces: datagrams for the UDP socket and plaintext packets for the TUN device.
/// The device loop maps these onto its send batch and TUN write batch; tests collect them in lists.
/// </summary>
internal interface ITunnelOutput
{
    /// <summary>Reserves a datagram of <paramref name="length"/> bytes to <paramref name="destination"/>; the engine fills the span at once.</summary>
    Span<byte> AddDatagram(int length, DatagramAddress destination);

    /// <summary>
    /// Reserves a handshake message or cookie reply: sent without waiting for room in the socket, and dropped (counted as
    /// <see cref="TunnelDropReason.ControlSendDropped"/>) when the socket cannot take it. An <paramref name="expendable"/>
    /// one (a cookie reply to an address no peer has) is also dropped while datagrams that wait in the kernel hold a
    /// quarter of the send buffer: replies to forged on-link addresses wait there for ARP until it fails.
    /// </summary>
    Span<byte> AddControlDatagram(int length, DatagramAddress destination, bool expendable) => AddDatagram(length, destination);

    /// <summary>Hands over a decrypted, authenticated IP packet for the TUN device; the span is valid only during the call.</summary>
    void WritePacket(ReadOnlySpan<byte> packet);
}
