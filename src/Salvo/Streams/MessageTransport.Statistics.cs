using System.Runtime.CompilerServices;

namespace Salvo.Streams;

/// <summary>
/// What a <see cref="MessageTransport"/> counts: messages per transport, refused sends, datagrams without a message, and the
/// kernel's drops on every UDP socket it has used (a socket closed by a path switch keeps its count here).
/// </summary>
public sealed partial class MessageTransport
{
    private readonly TransportCounters _counters = new();
    private readonly Lock _udpDropsLock = new();
    private long _retiredUdpDrops;
    private DatagramSocket? _retiredUdp;
    private bool _udpDropsReadable;

    /// <summary>The counters since the transport was created, per transport; <see cref="MessageTransportStatistics.UdpKernelDrops"/> is read now.</summary>
    public MessageTransportStatistics GetStatistics() =>
        _counters.Snapshot() with { UdpKernelDrops = ReadUdpKernelDrops(), TransportSwitches = TransportSwitches };

    private ValueTask<bool> Counted(TransportKind transport, ValueTask<bool> send)
    {
        if (send.IsCompletedSuccessfully)
        {
            // A new value task: the result of one backed by a pooled source may be read only once.
            var taken = send.Result;
            _counters.OnSent(transport, taken);
            return new ValueTask<bool>(taken);
        }

        return AwaitCounted(transport, send);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> AwaitCounted(TransportKind transport, ValueTask<bool> send)
    {
        var taken = await send.ConfigureAwait(false);
        _counters.OnSent(transport, taken);
        return taken;
    }

    /// <summary>Whether the platform reports drops on <paramref name="socket"/>, the one now carrying traffic.</summary>
    private void NoteUdpDropsReadable(DatagramSocket socket)
    {
        lock (_udpDropsLock)
        {
            _udpDropsReadable = socket.ReadKernelDrops() is not null;
        }
    }

    /// <summary>Closes a UDP socket that carried traffic, keeping its kernel drop count (read just before, as a closed socket cannot be asked).</summary>
    private void RetireUdp(DatagramSocket socket)
    {
        lock (_udpDropsLock)
        {
            if (!ReferenceEquals(socket, _retiredUdp))
            {
                _retiredUdpDrops += socket.ReadKernelDrops() ?? 0;
                _retiredUdp = socket;
            }
        }

        socket.Dispose();
    }

    private long? ReadUdpKernelDrops()
    {
        lock (_udpDropsLock)
        {
            if (!_udpDropsReadable)
            {
                return null;
            }

            var current = _udp is { } socket && !ReferenceEquals(socket, _retiredUdp) ? socket.ReadKernelDrops() ?? 0 : 0;
            return _retiredUdpDrops + current;
        }
    }
}
