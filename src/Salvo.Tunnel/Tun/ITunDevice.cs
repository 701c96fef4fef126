namespace Salvo.Tunnel;

/// <summary>A layer-3 virtual interface: IP packets in and out, in batches.</summary>
public interface ITunDevice : IDisposable
{
    /// <summary>The interface name the kernel gave (for example <c>salvo0</c>).</summary>
    string Name { get; }

    /// <summary>The offloads the device works with, in words, for the log. Defaults to none: one packet per read and write.</summary>
    string Offloads => "none (one packet per read and write)";

    /// <summary>
    /// The interface's MTU now, read from the kernel: the tunnel looks once a tick (100 ms) and pads and sizes its
    /// buffers for it. 0 where the device cannot tell; the tunnel then keeps the configured MTU. Defaults to 0.
    /// </summary>
    int Mtu => 0;

    /// <summary>
    /// Packets the device read but could not hand over because they were longer than the batch's buffers (the MTU was
    /// raised after the tunnel last looked, or a packet was longer than the MTU); the tunnel counts them as
    /// <see cref="TunnelDropReason.PacketTooLarge"/>. Only grows. Defaults to 0.
    /// </summary>
    long PacketsTooLarge => 0;

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for packets, then reads as many as are ready into
    /// <paramref name="batch"/> (cleared first). Returns the count; 0 on timeout.
    /// </summary>
    int ReadBatch(PacketBatch batch, TimeSpan timeout);

    /// <summary>
    /// Writes one IP packet to the interface, or holds it to be joined with the next ones of its flow until
    /// <see cref="Flush"/>; false when the kernel refused it (counted by the caller).
    /// </summary>
    bool Write(ReadOnlySpan<byte> packet);

    /// <summary>Writes what <see cref="Write"/> held; returns how many packets the kernel refused. Nothing to do for a device that writes at once.</summary>
    int Flush() => 0;
}
