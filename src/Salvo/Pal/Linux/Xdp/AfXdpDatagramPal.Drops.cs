namespace Salvo.Pal;

/// <summary>
/// The kernel's drops for an AF_XDP socket: frames the program redirected that found its RX ring full or no free frame
/// on its fill ring (XDP_STATISTICS rx_ring_full and rx_dropped, net/xdp/xsk.c), plus what the UDP socket dropped.
/// </summary>
internal sealed partial class AfXdpDatagramPal : IKernelDropCounter
{
    private IKernelDropCounter? _udpDrops;
    private long _lastDrops;

    public long? Read()
    {
        lock (_receiveLock)
        {
            if (!IsDisposed)
            {
                _udpDrops ??= LinuxKernelDropReader.TryCreate(Socket);
                var drops = _udpDrops?.Read() ?? 0;
                foreach (var queue in _queues)
                {
                    var statistics = queue.Socket.ReadStatistics();
                    drops += (long)(statistics.RxRingFull + statistics.RxDropped);
                }

                _lastDrops = drops;
            }

            return _lastDrops;
        }
    }
}
