using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;

namespace Salvo;

/// <summary>How to open a <see cref="DatagramSocket"/>. Checked when the socket opens; a bad value names its option.</summary>
public sealed class DatagramSocketOptions
{
    /// <summary>
    /// Where to bind. <see cref="IPAddress.IPv6Any"/> with <see cref="DualMode"/> accepts IPv4 and IPv6.
    /// Defaults to 0.0.0.0 with port 0 (an ephemeral port).
    /// </summary>
    public IPEndPoint LocalEndPoint { get; set; } = new(IPAddress.Any, 0);

    /// <summary>Whether an IPv6 socket also sends and receives IPv4 (IPV6_V6ONLY off). Defaults to true.</summary>
    public bool DualMode { get; set; } = true;

    /// <summary>
    /// What <see cref="ReceiveBufferSize"/> and <see cref="SendBufferSize"/> ask for unless set: 4 MiB. Enough for a burst of
    /// about 3,500 datagrams of 1,200 B, or 10,000 of 64 B, while nobody reads (the kernel's own default, net.core.rmem_default
    /// at 208 KiB, holds about 90 of 1,200 B and drops the rest). The kernel caps it at net.core.rmem_max / wmem_max; the
    /// memory is taken only while datagrams wait, not reserved.
    /// </summary>
    public const int DefaultSocketBufferSize = 4 * 1024 * 1024;

    /// <summary>
    /// The receive buffer (SO_RCVBUF) to ask the kernel for, in bytes; null keeps the system default (Linux:
    /// net.core.rmem_default). Linux caps the request at net.core.rmem_max and grants twice the value (bookkeeping);
    /// <see cref="DatagramSocket.ReceiveBufferSize"/> says what was granted, and
    /// <see cref="DatagramSocketStatistics.KernelDrops"/> counts what overflowed it. Defaults to
    /// <see cref="DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? ReceiveBufferSize { get; set; } = DefaultSocketBufferSize;

    /// <summary>
    /// The send buffer (SO_SNDBUF) to ask for, in bytes (capped at net.core.wmem_max, granted twice over on Linux); null keeps
    /// the system default. A larger one lets a large batch or GSO burst go out in one call instead of stopping at a full
    /// buffer; <see cref="DatagramSocket.SendBufferSize"/> says what was granted. Defaults to <see cref="DefaultSocketBufferSize"/> (4 MiB).
    /// </summary>
    public int? SendBufferSize { get; set; } = DefaultSocketBufferSize;

    /// <summary>
    /// SO_REUSEPORT: several sockets bind the same address and port and the kernel spreads incoming flows
    /// over them by address hash (Linux). Defaults to false.
    /// </summary>
    public bool ReusePort { get; set; }

    /// <summary>Which backend moves datagrams. Defaults to <see cref="DatagramBackend.Auto"/>.</summary>
    public DatagramBackend Backend { get; set; } = DatagramBackend.Auto;

    /// <summary>
    /// UDP GSO on send (Linux): a run of equal-sized datagrams to one destination in a <see cref="SendBatch"/>
    /// leaves as one super-datagram that the kernel (or the NIC) cuts, instead of one trip through the stack
    /// each. Used only where the kernel supports it; switched off for the socket (and counted) if the kernel
    /// or a device refuses a GSO send. Defaults to true.
    /// </summary>
    public bool Gso { get; set; } = true;

    /// <summary>
    /// UDP GRO on receive (Linux): the kernel may deliver many datagrams of one flow in one buffer, which
    /// Salvo splits back into datagrams. Turned on at the first receive into a <see cref="ReceiveBatch"/>
    /// whose buffers can hold a whole coalesced buffer (<see cref="ReceiveBatch.DefaultBufferSize"/>, the
    /// default); a socket that only receives into smaller buffers never turns it on. Defaults to true.
    /// </summary>
    public bool Gro { get; set; } = true;

    /// <summary>
    /// Reports each received datagram's destination address and interface (IP_PKTINFO / IPV6_RECVPKTINFO),
    /// for servers bound to a wildcard address that must reply from the address they were reached on.
    /// Linux backend only: the Portable backend refuses it at open (<see cref="NotSupportedException"/>). Defaults to false.
    /// </summary>
    public bool ReceivePacketInformation { get; [SupportedOSPlatform("linux")] set; }

    /// <summary>
    /// Reports each received datagram's ECN bits (IP_RECVTOS / IPV6_RECVTCLASS). Linux backend only: the Portable
    /// backend refuses it at open (<see cref="NotSupportedException"/>). Defaults to false.
    /// </summary>
    public bool ReceiveEcn { get; [SupportedOSPlatform("linux")] set; }

    /// <summary>
    /// Sets don't-fragment and never fragments locally (IP_PMTUDISC_PROBE / IPV6_DONTFRAG): a datagram
    /// larger than the path MTU fails with <see cref="DatagramTooLargeException"/> (single sends) or is
    /// counted and skipped with <see cref="System.Net.Sockets.SocketError.MessageSize"/> (batches) instead of
    /// leaving as IP fragments. Both backends set it (on Linux the same options; elsewhere the runtime's
    /// <see cref="System.Net.Sockets.Socket.DontFragment"/>); a socket that refuses it fails at open with a
    /// <see cref="NotSupportedException"/> naming the option. Defaults to false.
    /// </summary>
    public bool DontFragment { get; set; }

    /// <summary>
    /// How a <see cref="DatagramBackend.AfXdp"/> socket waits for datagrams: true spins on its receive ring (no system call
    /// and no wake-up, the lowest latency, one core busy for as long as a receive waits) and asks the kernel to busy-poll
    /// the queue (SO_PREFER_BUSY_POLL, SO_BUSY_POLL, SO_BUSY_POLL_BUDGET); false sleeps in poll(2) until the ring has
    /// frames. Ignored by other backends. Defaults to false.
    /// </summary>
    public bool AfXdpBusyPoll { get; [SupportedOSPlatform("linux")] set; }

    /// <summary>Where the socket logs rare events (for example GSO switched off). Defaults to no logging.</summary>
    public ILogger? Logger { get; set; }

    /// <summary>Throws an <see cref="ArgumentException"/> naming the first invalid option.</summary>
    public void Validate()
    {
        if (LocalEndPoint is null)
        {
            throw new ArgumentException("LocalEndPoint is required.", nameof(LocalEndPoint));
        }

        if (LocalEndPoint.AddressFamily is not (AddressFamily.InterNetwork or AddressFamily.InterNetworkV6))
        {
            throw new ArgumentException($"LocalEndPoint must be IPv4 or IPv6, not {LocalEndPoint.AddressFamily}.", nameof(LocalEndPoint));
        }

        CheckBufferSize(ReceiveBufferSize, nameof(ReceiveBufferSize));
        CheckBufferSize(SendBufferSize, nameof(SendBufferSize));

        if (!Enum.IsDefined(Backend))
        {
            throw new ArgumentOutOfRangeException(nameof(Backend), Backend, "Unknown backend.");
        }

        if (Pal.Platform.Current.RefuseBackend(Backend) is string refusal)
        {
            throw new PlatformNotSupportedException(refusal);
        }
    }

    /// <summary>Throws an <see cref="ArgumentOutOfRangeException"/> naming <paramref name="name"/> when a socket buffer size is not positive (null is fine: the system default).</summary>
    internal static void CheckBufferSize(int? value, string name)
    {
        if (value is <= 0)
        {
            throw new ArgumentOutOfRangeException(name, value, $"{name} must be positive, or null for the system default.");
        }
    }

    /// <summary>A copy, so a socket or server opened from these options is not affected by later changes.</summary>
    internal DatagramSocketOptions Clone() => (DatagramSocketOptions)MemberwiseClone();
}
