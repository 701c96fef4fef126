namespace Salvo;

/// <summary>What a <see cref="DatagramSocket"/> actually does: the kernel's support, probed once per process with a
/// real loopback send and receive, combined with the socket's options.</summary>
/// <param name="BatchedIo">recvmmsg/sendmmsg: many datagrams per system call.</param>
/// <param name="Gso">UDP generic segmentation offload on send: a run of equal-sized datagrams to one destination leaves as one super-datagram.</param>
/// <param name="Gro">UDP generic receive offload: the kernel may hand over many datagrams of one flow in one buffer, which Salvo splits.</param>
/// <param name="MaxGsoSegments">The most datagrams one GSO send carries (the kernel's UDP_MAX_SEGMENTS: 64).</param>
public readonly record struct DatagramCapabilities(bool BatchedIo, bool Gso, bool Gro, int MaxGsoSegments)
{
    /// <summary>
    /// The most payload one GSO message carries: 65,507 bytes, one IPv4 datagram's limit (65,535 - 20 IP - 8 UDP),
    /// which the kernel checks against the whole run (udp_send_skb in net/ipv4/udp.c).
    /// </summary>
    public const int MaxGsoMessageBytes = 65_507;

    /// <summary>
    /// How an <see cref="DatagramBackend.AfXdp"/> socket's frames move between the driver and its shared memory:
    /// <see cref="AfXdpMode.ZeroCopy"/> where the driver supports it, else <see cref="AfXdpMode.Copy"/>;
    /// <see cref="AfXdpMode.None"/> on every other backend.
    /// </summary>
    public AfXdpMode AfXdp { get; init; }

    /// <summary>
    /// How many datagrams of <paramref name="datagramSize"/> bytes fill one GSO message: the lesser of
    /// <see cref="MaxGsoSegments"/> and what fits in <see cref="MaxGsoMessageBytes"/> (47 of 1,380 bytes, 64 of
    /// 64 bytes); 1 without GSO. A <see cref="SendBatch"/> whose capacity is a multiple of this sends only full
    /// messages when filled with datagrams of that size to one destination.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="datagramSize"/> is not positive.</exception>
    public int GsoSegmentsPerMessage(int datagramSize)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(datagramSize);
        return Gso && MaxGsoSegments > 1 ? Math.Clamp(MaxGsoMessageBytes / datagramSize, 1, MaxGsoSegments) : 1;
    }
}
