using System.Net;

namespace Salvo.Tunnel.Paths;

/// <summary>
/// What the engine asks of the device's TCP side. Called under the engine's lock: implementations start the work and
/// return, and report back later through <see cref="TunnelEngine.OnTcpPathOpened"/>, <see cref="TunnelEngine.OnTcpDialFailed"/>
/// and <see cref="TunnelEngine.OnTcpPathClosed"/>.
/// </summary>
internal interface ITcpPathConnector
{
    /// <summary>Opens a TCP connection to <paramref name="endPoint"/> for <paramref name="peer"/>.</summary>
    void Dial(WireGuardKey peer, IPEndPoint endPoint);

    /// <summary>Closes the connection named <paramref name="path"/> once <paramref name="after"/> has passed.</summary>
    void Close(DatagramAddress path, TimeSpan after);

    /// <summary>
    /// The connection named <paramref name="path"/> carried an authenticated message from a peer: it is no stranger
    /// any more, and no longer waits under the budget of unauthenticated connections.
    /// </summary>
    void Authenticated(DatagramAddress path);
}
