namespace Salvo;

/// <summary>What a <see cref="DatagramSocket"/> actually does: the kernel's support, probed once per process with a
/// real loopback send and receive, combined with the socket's options.</summary>
/// <param name="BatchedIo">recvmmsg/sendmmsg: many datagrams per system call.</param>
/// <param name="Gso">UDP generic segmentation offload on send: a run of equal-sized datagrams to one destination leaves as one super-datagram.</param>
/// <param name="Gro">UDP generic receive offload: the kernel may hand over many datagrams of one flow in one buffer, which Salvo splits.</param>
/// <param name="MaxGsoSegments">The most datagrams one GSO send carries (the kernel's UDP_MAX_SEGMENTS: 64).</param>
public readonly record struct DatagramCapabilities(bool BatchedIo, bool Gso, bool Gro, int MaxGsoSegments);
