using System.Net;
using System.Net.Sockets;

namespace Salvo.Streams;

/// <summary>How a <see cref="StreamServer"/> listens. Checked when it starts; a bad value names its option.</summary>
public sealed class StreamServerOptions : StreamOptions
{
    /// <summary>Where to listen. Defaults to 127.0.0.1 with port 0 (an ephemeral port).</summary>
    public IPEndPoint EndPoint { get; set; } = new(IPAddress.Loopback, 0);

    /// <summary>The listen backlog: connections the kernel completes before they are accepted. Defaults to 4,096.</summary>
    public int Backlog { get; set; } = 4096;

    /// <summary>The most open connections; one more is accepted and closed at once. Defaults to <see cref="int.MaxValue"/>.</summary>
    public int MaxConnections { get; set; } = int.MaxValue;

    /// <summary>
    /// SO_REUSEPORT on the listener (Linux): several servers, in one process or several, listen on the same
    /// address and port and the kernel spreads new connections over them by address hash. A way past a
    /// per-process open-file limit, or to accept on several cores. Defaults to false.
    /// </summary>
    public bool ReusePort { get; set; }

    /// <summary>Throws when a listen address is missing or neither IPv4 nor IPv6; the message names EndPoint.</summary>
    internal static void CheckEndPoint(IPEndPoint? endPoint)
    {
        if (endPoint is null)
        {
            throw new ArgumentException("EndPoint is required.", nameof(EndPoint));
        }

        if (endPoint.AddressFamily is not (AddressFamily.InterNetwork or AddressFamily.InterNetworkV6))
        {
            throw new ArgumentException($"EndPoint must be IPv4 or IPv6, not {endPoint.AddressFamily}.", nameof(EndPoint));
        }
    }

    /// <inheritdoc />
    public override void Validate()
    {
        base.Validate();
        CheckEndPoint(EndPoint);

        if (Backlog <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(Backlog), Backlog, "Backlog must be positive.");
        }

        if (MaxConnections <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxConnections), MaxConnections, "MaxConnections must be positive.");
        }
    }
}
