using System.Net;

namespace Salvo.Server;

/// <summary>What a server on <see cref="DatagramBackend.AfXdp"/> cannot take, refused before anything is bound.</summary>
public sealed partial class DatagramServerOptions
{
    private IEnumerable<(string Option, string Message)> AfXdpErrors()
    {
        // One AF_XDP socket serves each receive queue of the interface and the XDP program redirects every datagram to the
        // port there: a second worker's socket would find the queues taken (EBUSY from XDP_UMEM_REG's bind) and SO_REUSEPORT
        // never sees the redirected frames.
        if (Workers > 1)
        {
            yield return (nameof(Workers),
                $"Workers must be 1 with Backend AfXdp (was {Workers}): one AF_XDP socket serves every receive queue of the interface, so a second worker's socket cannot bind them.");
        }

        if (EndPoint is { } endPoint && (endPoint.Address.Equals(IPAddress.Any) || endPoint.Address.Equals(IPAddress.IPv6Any) || IPAddress.IsLoopback(endPoint.Address)))
        {
            yield return (nameof(EndPoint),
                $"EndPoint must be the address of one network interface with Backend AfXdp (was {endPoint.Address}): the XDP program and the AF_XDP sockets live on that interface.");
        }
    }
}
