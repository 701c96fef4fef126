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
    /// The receive buffer to ask the kernel for, in bytes; null keeps the system default. Linux caps it at
    /// net.core.rmem_max and reports twice the value (bookkeeping); <see cref="DatagramSocket.ReceiveBufferSize"/>
    /// says what was granted. Defaults to null.
    /// </summary>
    public int? ReceiveBufferSize { get; set; }

    /// <summary>The send buffer to ask for, in bytes (capped at net.core.wmem_max); null keeps the default. Defaults to null.</summary>
    public int? SendBufferSize { get; set; }

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

        if (ReceiveBufferSize is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(ReceiveBufferSize), ReceiveBufferSize, "ReceiveBufferSize must be positive.");
        }

        if (SendBufferSize is <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(SendBufferSize), SendBufferSize, "SendBufferSize must be positive.");
        }

        if (!Enum.IsDefined(Backend))
        {
            throw new ArgumentOutOfRangeException(nameof(Backend), Backend, "Unknown backend.");
        }

        if (Pal.Platform.Current.RefuseBackend(Backend) is string refusal)
        {
            throw new PlatformNotSupportedException(refusal);
        }
    }

    /// <summary>A copy, so a socket or server opened from these options is not affected by later changes.</summary>
    internal DatagramSocketOptions Clone() => (DatagramSocketOptions)MemberwiseClone();
}
