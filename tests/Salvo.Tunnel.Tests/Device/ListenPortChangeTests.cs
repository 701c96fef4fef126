using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// A new listen port (wg set listen-port, wg setconf) replaces the device's UDP socket and closes the old one: every
/// send that follows, handshake messages included, goes out on the new one.
/// </summary>
public sealed class ListenPortChangeTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(15);

    [Fact]
    public void ListenPort_ChangedBeforeTheFirstHandshake_HandshakeAndDataGoOutOnTheNewSocket()
    {
        using var devices = new DevicePair(IPAddress.Loopback, modeA: TcpFallbackMode.Off);
        var old = devices.A.ListenPort;

        Assert.Equal(UapiErrno.None, devices.A.Configure(new TunnelChange { ListenPort = 0 }, out var error));
        Assert.True(error is null, error);
        Assert.NotEqual(old, devices.A.ListenPort);

        // The old socket is closed half a second after the change: past that, a send through it would throw (the
        // handshake's sends once did, and the exception ended the device's outbound thread and the process).
        Thread.Sleep(TimeSpan.FromSeconds(1));
        devices.AssertCarriesBothWays(s_patience);
    }

    [Fact]
    public void ListenPort_FlippedBetweenTwoPortsInQuickSuccession_NoChangeIsRefused()
    {
        // The peer may fall back to TCP, so each change moves the TCP listener too.
        using var devices = new DevicePair(IPAddress.Loopback, modeA: TcpFallbackMode.Auto);
        var first = devices.A.ListenPort;
        Assert.Equal(UapiErrno.None, devices.A.Configure(new TunnelChange { ListenPort = 0 }, out var error));
        Assert.True(error is null, error);
        var second = devices.A.ListenPort;

        for (var flip = 0; flip < 100; flip++)
        {
            var port = flip % 2 == 0 ? first : second;
            Assert.True(
                devices.A.Configure(new TunnelChange { ListenPort = port }, out error) == UapiErrno.None,
                $"flip {flip} to {port}: {error}");
            Assert.Equal(port, devices.A.ListenPort);
        }

        // The data path still works on the port it ended on (the taken-back socket is the one the loops read).
        devices.AssertCarriesBothWays(s_patience);
    }
}
