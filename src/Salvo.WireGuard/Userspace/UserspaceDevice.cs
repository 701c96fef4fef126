using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;

namespace Salvo.WireGuard.Userspace;

/// <summary>
/// A tunnel device as wireguard-go starts one: no private key, no peers, a port the kernel picks, and the control socket
/// through which wg (wg setconf, wg set) gives it all of them.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class UserspaceDevice : IDisposable
{
    private readonly TunnelDevice _device;
    private readonly WireGuardControlSocket _socket;

    private UserspaceDevice(TunnelDevice device, WireGuardControlSocket socket)
    {
        _device = device;
        _socket = socket;
    }

    public string InterfaceName => _device.InterfaceName;

    /// <summary>The tunnel itself, for what reads its counters (the metrics endpoint).</summary>
    public TunnelDevice Tunnel => _device;

    public string SocketPath => _socket.Path;

    /// <summary>Why a data loop of the device ended (the device no longer carries packets); null while both run.</summary>
    public Exception? LoopFailure => _device.LoopFailure;

    /// <summary>Starts the device on <paramref name="tun"/> (taken over) and its socket.</summary>
    /// <exception cref="IOException">Another process answers on the interface's socket.</exception>
    public static UserspaceDevice Start(ITunDevice tun, ILogger logger)
    {
        var device = TunnelDevice.Start(new TunnelConfiguration(), tun, logger: logger);
        try
        {
            return new UserspaceDevice(device, WireGuardControlSocket.Start(device, logger: logger));
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }

    /// <summary>Removes the socket first, so wg finds no socket of a device that is going.</summary>
    public void Dispose()
    {
        _socket.Dispose();
        _device.Dispose();
    }
}
