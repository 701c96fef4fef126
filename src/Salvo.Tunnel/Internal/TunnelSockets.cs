using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Paths;

namespace Salvo.Tunnel;

/// <summary>
/// The device's UDP socket and its live changes: a new listen port is bound (UDP, then the TCP fallback's listener on
/// the same number) and the firewall mark set before anything else changes, so a port in use or a refused mark changes
/// nothing; then the rest of the change is applied, and the new sockets take over. The old UDP socket closes once both
/// loops have left it; the old listener stops accepting at once. A port whose old socket has not closed yet is taken
/// back with that socket, so flipping between two ports never refuses.
/// </summary>
internal sealed class TunnelSockets : IDisposable
{
    private const int SocketBufferSize = 4 << 20;

    // With 1,000 of the 28,232 ephemeral ports (Linux's default 32768-60999) held on TCP, two picks in a row collide
    // about once in 800; 100 attempts fail only where nearly every number is held.
    private const int AnyPortAttempts = 100;

    private readonly Lock _changeGate = new();
    private volatile DatagramSocket _socket;

    /// <summary>Replaced sockets close after the loops' next turn: each reads <see cref="Socket"/> anew and waits at most a tick (100 ms) in a receive.</summary>
    private readonly RetiringSockets _retiring = new(5 * TunnelEngine.TickInterval);

    /// <summary>
    /// Binds the first socket to <paramref name="port"/> (0: a number free on both UDP and TCP), marked
    /// <paramref name="mark"/> (0: none), and starts <paramref name="tcp"/>'s listener on the same number. A listener
    /// that cannot start is logged to <paramref name="logger"/>: the tunnel still works over UDP.
    /// </summary>
    public TunnelSockets(int port, uint mark, TcpPaths tcp, ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(tcp);
        _socket = BindWithListener(port, tcp, mark, out var listener, out var listenerFailure);
        if (listenerFailure is not null)
        {
            TunnelLog.TcpListenerFailed(logger, _socket.LocalEndPoint.Port, listenerFailure.Message);
        }

        if (mark != 0)
        {
            try
            {
                SetMark(_socket, mark);
            }
            catch
            {
                listener?.Abandon();
                _socket.Dispose();
                throw;
            }

            FwMark = mark;
        }

        tcp.ReplaceListener(listener, mark);
    }

    /// <summary>The UDP socket in use now; the loops read it anew for every receive and send.</summary>
    public DatagramSocket Socket => _socket;

    /// <summary>The UDP port the socket in use listens on.</summary>
    public int ListenPort => _socket.LocalEndPoint.Port;

    /// <summary>The firewall mark (SO_MARK) of the sockets; 0 when none is set.</summary>
    public uint FwMark { get; private set; }

    /// <summary>
    /// Moves to <paramref name="port"/> and <paramref name="mark"/> (null: as they are) and calls <paramref name="apply"/>
    /// in between: after every socket step has succeeded, before the new sockets take over. One change at a time.
    /// </summary>
    /// <returns>0, or the UAPI errno (nothing changed, <paramref name="apply"/> not called), with <paramref name="error"/> saying why.</returns>
    public int Change(int? port, uint? mark, TcpPaths tcp, Action apply, out string? error)
    {
        ArgumentNullException.ThrowIfNull(tcp);
        ArgumentNullException.ThrowIfNull(apply);
        error = null;
        lock (_changeGate)
        {
            DatagramSocket? rebound = null;
            var reboundMark = 0u;
            var oldMark = FwMark;
            var takenBack = false;
            TcpPaths.Listener? listener = null;
            var newMark = mark ?? FwMark;
            var step = "fwmark";
            try
            {
                if (port is { } newPort && newPort != ListenPort)
                {
                    step = $"listen_port {newPort}";
                    takenBack = _retiring.TryTake(newPort, out rebound, out reboundMark);
                    if (takenBack)
                    {
                        step = $"listen_port {newPort} (TCP fallback listener on {newPort})";
                        listener = tcp.Listen(newPort, newMark);
                    }
                    else
                    {
                        rebound = BindWithListener(newPort, tcp, newMark, out listener, out var listenerFailure);
                        if (listenerFailure is not null)
                        {
                            step = $"listen_port {newPort} (TCP fallback listener on {rebound.LocalEndPoint.Port})";
                            throw listenerFailure;
                        }
                    }

                    step = "fwmark";
                }

                if (rebound is not null ? newMark != reboundMark : newMark != FwMark)
                {
                    SetMark(rebound ?? _socket, newMark);
                }

                if (rebound is null && newMark != FwMark)
                {
                    tcp.SetMark(newMark);
                }
            }
            catch (Exception e) when (e is SocketException or PlatformNotSupportedException)
            {
                if (takenBack)
                {
                    // A loop may still be in a receive on it: it goes back to close after the same delay.
                    _retiring.Retire(rebound!, reboundMark);
                }
                else
                {
                    rebound?.Dispose();
                }

                listener?.Abandon();
                if (rebound is null && newMark != FwMark && step == "fwmark")
                {
                    // The UDP socket took the new mark and the listener refused it: put the old one back, so nothing changed.
                    TrySetMark(_socket, FwMark);
                }

                error = $"{step}: {e.Message}";
                return UapiErrno.PortInUse;
            }

            apply();
            FwMark = newMark;
            if (rebound is not null)
            {
                tcp.ReplaceListener(listener, newMark);
                var old = _socket;
                _socket = rebound;
                _retiring.Retire(old, oldMark);
            }

            return UapiErrno.None;
        }
    }

    /// <summary>Closes the socket in use and every retiring one (the device's loops have stopped).</summary>
    public void Dispose()
    {
        _retiring.Dispose();
        _socket.Dispose();
    }

    private static void SetMark(DatagramSocket socket, uint mark) => Pal.TunnelPlatform.Current.SetSocketMark(socket.Socket, mark);

    private static void TrySetMark(DatagramSocket socket, uint mark)
    {
        try
        {
            SetMark(socket, mark);
        }
        catch (Exception e) when (e is SocketException or PlatformNotSupportedException)
        {
            // The socket took this mark before, so a refusal here is not expected; the change is refused either way.
        }
    }

    /// <summary>
    /// A UDP socket on <paramref name="port"/> and the TCP fallback's listener on the same number, marked
    /// <paramref name="mark"/> (<paramref name="listener"/>, null when no peer may fall back). With port 0 the kernel
    /// picks the UDP port among its ephemeral ports, which TCP connections take their local ports from too: the number
    /// may be held on TCP (a connection this or any process opened, one in TIME_WAIT for 60 s), and the listener's bind
    /// then fails with EADDRINUSE (a live change to port 0 was refused so, and a device started on port 0 ran without
    /// its listener). So another port is picked, up to <see cref="AnyPortAttempts"/> times, as wireguard-go picks again
    /// when its second socket cannot take the port its first one got (conn/bind_std.go). A listener that fails on a
    /// port asked for by number, or for another reason, is <paramref name="listenerFailure"/>; the UDP socket is
    /// returned either way. A UDP bind that fails throws.
    /// </summary>
    private static DatagramSocket BindWithListener(int port, TcpPaths tcp, uint mark, out TcpPaths.Listener? listener, out Exception? listenerFailure)
    {
        for (var attempt = 1; ; attempt++)
        {
            var socket = BindDualStack(port);
            try
            {
                listener = tcp.Listen(socket.LocalEndPoint.Port, mark);
                listenerFailure = null;
                return socket;
            }
            catch (SocketException e) when (port == 0 && e.SocketErrorCode == SocketError.AddressAlreadyInUse && attempt < AnyPortAttempts)
            {
                socket.Dispose();
            }
            catch (Exception e) when (e is SocketException or PlatformNotSupportedException)
            {
                listener = null;
                listenerFailure = e;
                return socket;
            }
        }
    }

    /// <summary>One socket for IPv4 and IPv6 peers ([::] with IPV6_V6ONLY off); IPv4 alone where the host has no IPv6.</summary>
    private static DatagramSocket BindDualStack(int port)
    {
        if (System.Net.Sockets.Socket.OSSupportsIPv6)
        {
            try
            {
                return Bind(new IPEndPoint(IPAddress.IPv6Any, port));
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.AddressFamilyNotSupported or SocketError.AddressNotAvailable)
            {
            }
        }

        return Bind(new IPEndPoint(IPAddress.Any, port));
    }

    /// <summary>
    /// Socket buffers of 4 MiB each way (the kernel caps them at net.core.rmem_max / wmem_max): a burst of GSO sends
    /// from the peer is 64 KiB a message, and the 208 KiB default overflows while the receive thread waits for a core
    /// (wireguard-go asks for 7 MiB, conn/controlfns_linux.go).
    /// </summary>
    private static DatagramSocket Bind(IPEndPoint endpoint) => new(new DatagramSocketOptions
    {
        LocalEndPoint = endpoint,
        ReceiveBufferSize = SocketBufferSize,
        SendBufferSize = SocketBufferSize,
    });
}
