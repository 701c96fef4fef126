namespace Salvo.Tunnel.Offload;

/// <summary>Where <see cref="TunCoalescer"/> puts what it built: one packet or super-packet and the header that describes it.</summary>
internal interface ITunPacketWriter
{
    /// <summary>Writes <paramref name="packet"/> behind <paramref name="header"/> in one call to the device.</summary>
    void Write(VirtioNetHeader header, ReadOnlySpan<byte> packet);
}
