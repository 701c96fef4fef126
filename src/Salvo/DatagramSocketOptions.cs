using System.Net;
using System.Net.Sockets;

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

        if (Backend == DatagramBackend.LinuxBatched && !OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("Backend LinuxBatched needs Linux; use Auto or Portable.");
        }
    }
}
