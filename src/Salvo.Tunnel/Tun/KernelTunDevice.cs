using System.Runtime.Versioning;
using Salvo.Internal;
using Salvo.Tunnel.Offload;
using Salvo.Tunnel.Pal;

namespace Salvo.Tunnel;

/// <summary>
/// The operating system's TUN interface, opened through the tunnel's platform layer (<c>/dev/net/tun</c> on Linux): a read
/// waits once for the first packet, then takes every packet already queued, up to the batch's capacity. With offloads
/// (the default, where the kernel takes them) a read may be a TCP or UDP super-packet of up to 64 KiB, which is cut
/// into MTU-sized packets here (<see cref="TunSegmentation"/>), and written packets of one flow are joined again
/// before they go to the kernel (<see cref="TunCoalescer"/>, written out by <see cref="Flush"/>), so one system call
/// carries dozens of packets both ways. Without offloads each read and write is one packet, straight into and out of
/// the batch's buffers. Nothing is allocated per packet.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class KernelTunDevice : ITunDevice
{
    /// <summary>Flows joined at once on the way in; a batch rarely carries more (one TCP or UDP stream is one flow).</summary>
    private const int CoalescedFlows = 8;

    /// <summary>
    /// The largest super-packet a TUN device hands over: GSO_LEGACY_MAX_SIZE, 65,536 bytes with its IP header (the
    /// device's gso_max_size unless raised for BIG TCP). The read buffer holds one byte more, so a read that fills it
    /// was cut short and is dropped rather than cut into wrong segments.
    /// </summary>
    private const int LargestSuperPacket = 65_536;

    private readonly TunDevice _device;
    private readonly byte[]? _readBuffer;
    private readonly TunCoalescer? _coalescer;
    private readonly HeaderWriter? _writer;

    // Writes come from the inbound loop and from the TCP fallback's connections at once; the coalescer and its header
    // writer hold one super-packet in the making, so they take turns (uncontended while only one path carries data).
    private readonly Lock _writeGate = new();
    private SegmentLayout _pending;
    private int _pendingLength;
    private int _nextSegment;

    private KernelTunDevice(TunDevice device)
    {
        _device = device;
        if (device.VirtioHeaderSize > 0)
        {
            _readBuffer = GC.AllocateUninitializedArray<byte>(device.VirtioHeaderSize + LargestSuperPacket + 1);
            _writer = new HeaderWriter(device);
            var offloads = device.Offloads;
            if ((offloads & (TunOffloads.Tcp | TunOffloads.Udp)) != 0)
            {
                _coalescer = new TunCoalescer(CoalescedFlows, (offloads & TunOffloads.Tcp) != 0, (offloads & TunOffloads.Udp) != 0);
            }
        }
    }

    /// <inheritdoc />
    public string Name => _device.Name;

    /// <summary>What the kernel took, in words: "TSO4/6, USO4/6, checksum" or "none (one packet per read and write)".</summary>
    public string Offloads => Describe(_device.Offloads);

    /// <summary>The interface's MTU now (SIOCGIFMTU); 0 when it cannot be read (the interface was renamed or deleted).</summary>
    public int Mtu => _device.ReadMtu();

    /// <inheritdoc />
    public long PacketsTooLarge => Interlocked.Read(ref _packetsTooLarge);

    private long _packetsTooLarge;

    /// <summary>Sets the interface's MTU, as <c>ip link set dev NAME mtu N</c> does; the tunnel follows it within a tick.</summary>
    /// <param name="mtu">68 to 65,535, the range the kernel gives a TUN interface.</param>
    /// <exception cref="IOException">The kernel refused the value.</exception>
    public void SetMtu(int mtu) => _device.SetMtu(mtu);

    /// <summary>Super-packets read and cut into packets.</summary>
    internal long SuperPacketsRead { get; private set; }

    /// <summary>Reads dropped because their virtio_net_hdr did not describe the packet behind it.</summary>
    internal long MalformedReads { get; private set; }

    /// <summary>Super-packets written with more than one packet inside.</summary>
    internal long SuperPacketsWritten => _coalescer?.Coalesced ?? 0;

    /// <summary>Creates (or attaches to) the TUN interface <paramref name="name"/>, with offloads where the kernel takes them.</summary>
    /// <exception cref="ArgumentException">The name is longer than 15 characters.</exception>
    /// <exception cref="IOException">The device cannot be opened (no /dev/net/tun) or the kernel refuses it (not root, a name in use).</exception>
    public static KernelTunDevice Open(string name) => Open(name, offloads: true);

    /// <summary>
    /// Creates (or attaches to) the TUN interface <paramref name="name"/>; an empty name lets the kernel pick tunN.
    /// With <paramref name="offloads"/>, TSO, USO and checksum offload are asked for, and whatever the kernel takes is
    /// used (see <see cref="Offloads"/>); without, every read and write is one packet.
    /// </summary>
    /// <exception cref="ArgumentException">The name is longer than 15 characters.</exception>
    /// <exception cref="IOException">The device cannot be opened (no /dev/net/tun) or the kernel refuses it (not root, a name in use).</exception>
    public static KernelTunDevice Open(string name, bool offloads) =>
        new(TunnelPlatform.Current.OpenTunDevice(name, offloads ? TunOffloads.Checksum | TunOffloads.Tcp | TunOffloads.Udp : TunOffloads.None));

    /// <inheritdoc />
    public int ReadBatch(PacketBatch batch, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(batch);
        batch.Clear();
        if (!HasPendingSegments && !_device.WaitForPacket(PollTimeout.ToMilliseconds(timeout)))
        {
            return 0;
        }

        while (!batch.IsFull)
        {
            if (_readBuffer is null)
            {
                var length = _device.TryRead(batch.NextBuffer);
                if (length == 0)
                {
                    break;
                }

                if (length > batch.BufferSize || (length == batch.BufferSize && PacketLengths.IsCutShort(batch.NextBuffer)))
                {
                    // read(2) on a TUN fills a buffer too small for the packet and drops the rest: the packet is
                    // dropped whole, never carried cut short.
                    Interlocked.Increment(ref _packetsTooLarge);
                    continue;
                }

                batch.Commit(length);
            }
            else if (HasPendingSegments)
            {
                CutPending(batch);
            }
            else if (!TryReadSuperPacket(_readBuffer))
            {
                break;
            }
        }

        return batch.Count;
    }

    /// <inheritdoc />
    public bool Write(ReadOnlySpan<byte> packet)
    {
        if (_coalescer is not null)
        {
            lock (_writeGate)
            {
                _coalescer.Add(packet, _writer!);
            }

            return true;
        }

        return _device.Write(_writer is null ? [] : HeaderWriter.NoOffload, packet);
    }

    /// <summary>Writes the super-packets joined since the last flush; returns how many packets the kernel refused.</summary>
    public int Flush()
    {
        if (_coalescer is null)
        {
            return 0;
        }

        lock (_writeGate)
        {
            _coalescer.Flush(_writer!);
            return _writer!.TakeFailures();
        }
    }

    /// <inheritdoc />
    public void Dispose() => _device.Dispose();

    private static string Describe(TunOffloads offloads) => offloads == TunOffloads.None
        ? "none (one packet per read and write)"
        : string.Join(", ", new[]
        {
            (offloads & TunOffloads.Tcp) != 0 ? "TSO4/6" : null,
            (offloads & TunOffloads.Udp) != 0 ? "USO4/6" : null,
            (offloads & TunOffloads.Checksum) != 0 ? "checksum" : null,
        }.Where(part => part is not null));

    private bool HasPendingSegments => _nextSegment < _pending.Count;

    /// <summary>Reads one packet or super-packet behind its virtio_net_hdr and plans its cut; false when none is ready.</summary>
    private bool TryReadSuperPacket(byte[] buffer)
    {
        var headerSize = _device.VirtioHeaderSize;
        var length = _device.TryRead(buffer);
        if (length == 0)
        {
            return false;
        }

        _nextSegment = 0;
        _pendingLength = Math.Max(0, length - headerSize);
        if (length <= headerSize || length >= buffer.Length || !TunSegmentation.TryPlan(VirtioNetHeader.Read(buffer), buffer.AsSpan(headerSize, _pendingLength), out _pending))
        {
            _pending = default;
            MalformedReads++;
        }
        else if (_pending.Count > 1)
        {
            SuperPacketsRead++;
        }

        return true;
    }

    /// <summary>
    /// Cuts what is left of the last super-packet into the batch's free slots; the rest waits for the next batch, so a
    /// read is never lost to a full batch.
    /// </summary>
    private void CutPending(PacketBatch batch)
    {
        var packet = _readBuffer.AsSpan(_device.VirtioHeaderSize, _pendingLength);
        while (HasPendingSegments && !batch.IsFull)
        {
            var length = TunSegmentation.WriteSegment(_pending, packet, _nextSegment, batch.NextBuffer);
            if (length == 0)
            {
                // Segments are as long as the interface MTU allows and the tunnel sizes every slot for that MTU once a
                // tick; a longer one means the MTU was raised since: the rest of this read cannot be carried.
                Interlocked.Add(ref _packetsTooLarge, _pending.Count - _nextSegment);
                _nextSegment = _pending.Count;
                return;
            }

            batch.Commit(length);
            _nextSegment++;
        }
    }

    /// <summary>Writes through the device with each packet's virtio_net_hdr, counting what the kernel refuses until the next flush.</summary>
    private sealed class HeaderWriter(TunDevice device) : ITunPacketWriter
    {
        /// <summary>The all-zero header of a plain packet whose checksums are complete.</summary>
        public static ReadOnlySpan<byte> NoOffload => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

        private int _failures;

        public void Write(VirtioNetHeader header, ReadOnlySpan<byte> packet)
        {
            Span<byte> bytes = stackalloc byte[VirtioNetHeader.Size];
            header.Write(bytes);
            if (!device.Write(bytes, packet))
            {
                _failures++;
            }
        }

        public int TakeFailures()
        {
            var failures = _failures;
            _failures = 0;
            return failures;
        }
    }
}
