using System.Net.Sockets;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;

namespace Salvo.Perf.Tunnel.Userspace;

/// <summary>A tunnel device with no configuration and its control socket, as wireguard-go starts one.</summary>
[SupportedOSPlatform("linux")]
internal sealed class UserspaceDevice : IDisposable
{
    // TEMPORARY until the control socket lands: a listening socket at the path, so the lifecycle can be exercised.
    private readonly TunnelDevice _device;
    private readonly Socket _socket;

    private UserspaceDevice(TunnelDevice device, Socket socket, string socketPath)
    {
        _device = device;
        _socket = socket;
        SocketPath = socketPath;
    }

    public string InterfaceName => _device.InterfaceName;

    public string SocketPath { get; }

    public static UserspaceDevice Start(ITunDevice tun, ILogger logger)
    {
        var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, tun, logger: logger);
        var path = $"/var/run/wireguard/{device.InterfaceName}.sock";
        Directory.CreateDirectory("/var/run/wireguard");
        File.Delete(path);
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(path));
        socket.Listen();
        return new UserspaceDevice(device, socket, path);
    }

    public void Dispose()
    {
        _socket.Dispose();
        File.Delete(SocketPath);
        _device.Dispose();
    }
}
