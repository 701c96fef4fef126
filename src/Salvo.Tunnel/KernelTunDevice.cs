using System.Runtime.Versioning;
using Salvo.Internal;
using Salvo.Pal;

namespace Salvo.Tunnel;

/// <summary>
/// The operating system's TUN interface, opened through Salvo's platform layer (<c>/dev/net/tun</c> on Linux): a read
/// waits once for the first packet, then takes every packet already queued, up to the batch's capacity, straight into
/// the batch's buffers. Nothing is allocated per packet.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class KernelTunDevice : ITunDevice
{
    private readonly TunDevice _device;

    private KernelTunDevice(TunDevice device) => _device = device;

    /// <inheritdoc />
    public string Name => _device.Name;

    /// <summary>Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick tunN.</summary>
    /// <exception cref="ArgumentException">The name is longer than 15 characters.</exception>
    /// <exception cref="IOException">The device cannot be opened (no /dev/net/tun) or the kernel refuses it (not root, a name in use).</exception>
    public static KernelTunDevice Open(string name) => new(Platform.Current.OpenTunDevice(name));

    /// <inheritdoc />
    public int ReadBatch(PacketBatch batch, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(batch);
        batch.Clear();
        if (!_device.WaitForPacket(PollTimeout.ToMilliseconds(timeout)))
        {
            return 0;
        }

        while (!batch.IsFull)
        {
            var length = _device.TryRead(batch.NextBuffer);
            if (length == 0)
            {
                break;
            }

            batch.Commit(length);
        }

        return batch.Count;
    }

    /// <inheritdoc />
    public bool Write(ReadOnlySpan<byte> packet) => _device.Write(packet);

    /// <inheritdoc />
    public void Dispose() => _device.Dispose();
}
