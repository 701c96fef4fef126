namespace Salvo.Tunnel;

/// <summary>
/// Counts the datagrams the send batch takes in a row for one destination and says when a burst is full: the caller
/// then sends what it holds and gives up its core before the next one, so the peer gets to read between bursts.
/// </summary>
/// <remarks>
/// Why: wireguard-go 0.0.20220316 (Debian 12's) reads one datagram per system call from a socket left at the default
/// 212,992-byte buffer, which holds 92 datagrams of 1,452 bytes (the kernel charges each about 2.3 KB). A device read
/// of 128 packets sent in one call (three GSO messages of up to 45) landed in that buffer within 40 us; in a two-core
/// lab about a sixth of the TCP stream's datagrams were dropped there, every one a retransmit for TCP (17,055 drops,
/// 16,765 retransmits in 5 s). Smaller sends alone changed nothing (16 per call: 16,368 drops); giving up the core
/// after each one let the receiver, sharing the cores, drain its socket (bursts of 16: 579 to 8,929).
/// </remarks>
internal sealed class PeerBurst(int limit)
{
    /// <summary>The most datagrams sent to one destination before the sender yields: 16, about a sixth of that buffer.</summary>
    public const int DefaultLimit = 16;

    private DatagramAddress _destination;
    private int _run;

    /// <summary>The most datagrams to one destination in one burst.</summary>
    public int Limit => limit;

    /// <summary>
    /// Counts one datagram to <paramref name="destination"/>; true when the burst to it is already full, so the
    /// datagram must start the next one (the caller flushes and yields first).
    /// </summary>
    public bool Add(DatagramAddress destination)
    {
        if (_run == 0 || destination != _destination)
        {
            _destination = destination;
            _run = 1;
            return false;
        }

        if (_run < limit)
        {
            _run++;
            return false;
        }

        _run = 1;
        return true;
    }
}
