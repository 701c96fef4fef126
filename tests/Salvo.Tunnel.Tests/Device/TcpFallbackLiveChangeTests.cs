using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>The TCP fallback's sockets under a firewall mark and a new listen port, from the start and as live changes.</summary>
public sealed class TcpFallbackLiveChangeTests : IDisposable
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(10);
    private readonly WireGuardKey _peer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
    private readonly TcpListener _remote = new(IPAddress.Loopback, 0);
    private TunnelDevice? _device;

    public TcpFallbackLiveChangeTests() => _remote.Start();

    public void Dispose()
    {
        _device?.Dispose();
        _remote.Stop();
    }

    [RequiresFact(Requirement.Linux | Requirement.Root)]
    public void FwMark_TcpFallback_OnTheListenerAndOnEachDialBeforeConnect()
    {
        var device = Start(fwMark: 0x1234);
        Assert.Equal(0x1234u, Mark(Listener(device)));

        Assert.Equal(0x1234u, DialAndReadMark(device));
    }

    [RequiresFact(Requirement.Linux | Requirement.Root)]
    public void FwMark_ChangedLive_NewDialsAndTheListenerTakeItAndZeroClearsIt()
    {
        var device = Start(fwMark: 0);
        Assert.Equal(0u, DialAndReadMark(device));

        Assert.Equal(UapiErrno.None, device.Configure(new TunnelChange { FwMark = 0x51820 }, out _));
        Assert.Equal(0x51820u, Mark(Listener(device)));
        Assert.Equal(0x51820u, DialAndReadMark(device));

        Assert.Equal(UapiErrno.None, device.Configure(new TunnelChange { FwMark = 0 }, out _));
        Assert.Equal(0u, Mark(Listener(device)));
        Assert.Equal(0u, DialAndReadMark(device));
    }

    [RequiresFact(Requirement.Linux | Requirement.Root)]
    public void ListenPort_ChangedLive_TheNewListenerCarriesTheMark()
    {
        var device = Start(fwMark: 0x1234);

        Assert.Equal(UapiErrno.None, device.Configure(new TunnelChange { ListenPort = 0 }, out _));

        Assert.Equal(device.ListenPort, ((IPEndPoint)Listener(device).LocalEndPoint!).Port);
        Assert.Equal(0x1234u, Mark(Listener(device)));
    }

    [Fact]
    public void ListenPort_ChangedLive_TheTcpListenerMovesAndTheOldPortRefuses()
    {
        var device = Start(fwMark: 0);
        var old = device.ListenPort;
        Connect(old).Dispose();

        Assert.Equal(UapiErrno.None, device.Configure(new TunnelChange { ListenPort = 0 }, out _));

        Assert.NotEqual(old, device.ListenPort);
        Connect(device.ListenPort).Dispose();
        var refused = Assert.Throws<SocketException>(() => Connect(old));
        Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
    }

    [Fact]
    public void ListenPort_TakenOnTcpOnly_FailsWithEaddrinuseAndChangesNothing()
    {
        var device = Start(fwMark: 0);
        var old = device.ListenPort;
        using var taken = TakeTcpPortFreeOnUdp();
        var port = ((IPEndPoint)taken.LocalEndPoint!).Port;

        Assert.Equal(UapiErrno.PortInUse, device.Configure(new TunnelChange { ListenPort = port }, out var error));

        Assert.Contains("TCP fallback listener", error, StringComparison.Ordinal);
        Assert.Equal(old, device.ListenPort);
        Connect(old).Dispose();
    }

    private static uint Mark(Socket socket)
    {
        // SOL_SOCKET (1), SO_MARK (36): asm-generic/socket.h.
        var mark = new byte[4];
        socket.GetRawSocketOption(1, 36, mark);
        return BitConverter.ToUInt32(mark);
    }

    private static Socket Connect(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Connect(new IPEndPoint(IPAddress.Loopback, port));
            return socket;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>A TCP listener on a port whose UDP number is free (so only TCP can refuse it); a few tries at most.</summary>
    private static Socket TakeTcpPortFreeOnUdp()
    {
        for (var attempt = 0; ; attempt++)
        {
            var tcp = new Socket(AddressFamily.InterNetworkV6, SocketType.Stream, ProtocolType.Tcp) { DualMode = true };
            tcp.Bind(new IPEndPoint(IPAddress.IPv6Any, 0));
            tcp.Listen();
            try
            {
                using var udp = new Socket(AddressFamily.InterNetworkV6, SocketType.Dgram, ProtocolType.Udp) { DualMode = true };
                udp.Bind(new IPEndPoint(IPAddress.IPv6Any, ((IPEndPoint)tcp.LocalEndPoint!).Port));
                return tcp;
            }
            catch (SocketException) when (attempt < 10)
            {
                tcp.Dispose();
            }
        }
    }

    /// <summary>A device whose one peer may fall back to TCP (so it listens) and has no endpoint (so it dials only when told).</summary>
    private TunnelDevice Start(uint fwMark)
    {
        _device = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = WireGuardKey.GeneratePrivateKey(),
                FwMark = fwMark,
                Peers = [new PeerConfiguration { PublicKey = _peer, AllowedIps = [IPPrefix.Parse("198.19.0.2/32")], TcpFallback = TcpFallbackMode.Auto }],
            },
            new MemoryTun("mark"));
        return _device;
    }

    /// <summary>The TCP fallback's listening socket, once its listener has one (it is opened as the device starts, on another thread).</summary>
    private static Socket Listener(TunnelDevice device)
    {
        for (var i = 0; i < 1_000 && device.TcpPaths.ListenerSocket is null; i++)
        {
            Thread.Sleep(10);
        }

        return device.TcpPaths.ListenerSocket ?? throw new InvalidOperationException("the TCP fallback's listener has no socket after 10 s");
    }

    /// <summary>Dials the test's listener and returns the mark the socket had before it connected.</summary>
    private uint DialAndReadMark(TunnelDevice device)
    {
        var seen = new BlockingCollection<(uint Mark, bool Connected)>();
        device.TcpPaths.SocketConfigured = socket => seen.Add((Mark(socket), socket.Connected));
        try
        {
            device.TcpPaths.Dial(_peer, (IPEndPoint)_remote.LocalEndpoint);
            Assert.True(seen.TryTake(out var before, s_wait));
            Assert.False(before.Connected);
            using var accepted = _remote.AcceptSocketAsync().WaitAsync(s_wait).GetAwaiter().GetResult();
            return before.Mark;
        }
        finally
        {
            device.TcpPaths.SocketConfigured = null;
        }
    }
}
