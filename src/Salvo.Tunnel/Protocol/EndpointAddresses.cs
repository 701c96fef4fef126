using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The address (any port) of every peer's endpoint, counted, so whether a source is some peer's address is one
/// lookup at any number of peers. Each peer moves its own entry when its endpoint changes (<see cref="Peer.Endpoint"/>)
/// and takes it out when disposed. It replaces a set rebuilt once a second from every peer: at a million peers the
/// rebuild held the engine's lock for a walk of the whole table each second of a handshake storm.
/// </summary>
internal sealed class EndpointAddresses
{
    private readonly Lock _gate = new();
    private readonly Dictionary<DatagramAddress, int> _counts = [];

    /// <summary>Distinct addresses held.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _counts.Count;
            }
        }
    }

    /// <summary>Whether <paramref name="source"/>'s address, whatever its port, is a peer's endpoint.</summary>
    public bool Contains(DatagramAddress source)
    {
        if (!source.HasValue)
        {
            return false;
        }

        var key = KeyOf(source);
        lock (_gate)
        {
            return _counts.ContainsKey(key);
        }
    }

    /// <summary>A peer's endpoint moved from <paramref name="from"/> to <paramref name="to"/> (either may be none).</summary>
    public void Move(DatagramAddress from, DatagramAddress to)
    {
        // The lock of its own: endpoints move under the engine's lock today, and a path that moved one outside it
        // should cost a wrong answer at worst, never a dictionary broken by two writers.
        lock (_gate)
        {
            if (from.HasValue)
            {
                var key = KeyOf(from);
                ref var count = ref CollectionsMarshal.GetValueRefOrNullRef(_counts, key);
                if (!Unsafe.IsNullRef(ref count) && --count == 0)
                {
                    _counts.Remove(key);
                }
            }

            if (to.HasValue)
            {
                CollectionsMarshal.GetValueRefOrAddDefault(_counts, KeyOf(to), out _)++;
            }
        }
    }

    private static DatagramAddress KeyOf(DatagramAddress address) => address.Unmap().WithPort(0);
}
