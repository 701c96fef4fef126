using System.Net;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>The control socket against a running device on loopback with an in-memory TUN, at a socket path of the test's own.</summary>
public sealed class WireGuardControlSocketTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), $"salvo-uapi-{Environment.ProcessId}-{Guid.NewGuid():N}.sock");
    private readonly WireGuardKey _privateKey = WireGuardKey.GeneratePrivateKey();
    private readonly WireGuardKey _peerKey = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
    private readonly TunnelDevice _device;
    private readonly WireGuardControlSocket _control;

    public WireGuardControlSocketTests()
    {
        _device = TunnelDevice.Start(
            new TunnelConfiguration
            {
                PrivateKey = _privateKey,
                Peers =
                [
                    new PeerConfiguration
                    {
                        PublicKey = _peerKey,
                        AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                        Endpoint = new IPEndPoint(IPAddress.Loopback, 51820),
                        PersistentKeepalive = TimeSpan.FromSeconds(21),
                        TcpFallback = Salvo.Tunnel.Paths.TcpFallbackMode.Off,
                    },
                ],
            },
            new MemoryTun("uapi"));
        _control = WireGuardControlSocket.Start(_device, _path);
    }

    public void Dispose()
    {
        _control.Dispose();
        _device.Dispose();
    }

    [Fact]
    public void Get_RunningDevice_ReportsEveryKeyAsWireGuardGoDoes()
    {
        var answer = UapiClient.Request(_path, "get=1\n\n");

        Assert.Equal(
            [
                $"private_key={UapiClient.Hex(_privateKey)}",
                $"listen_port={_device.ListenPort}",
                $"public_key={UapiClient.Hex(_peerKey)}",
                $"preshared_key={new string('0', 64)}",
                "protocol_version=1",
                "endpoint=127.0.0.1:51820",
                "last_handshake_time_sec=0",
                "last_handshake_time_nsec=0",
                "tx_bytes=" + _device.Engine.GetPeers()[0].SentBytes,
                "rx_bytes=0",
                "persistent_keepalive_interval=21",
                "allowed_ip=198.19.0.2/32",
                "errno=0",
            ],
            answer.TrimEnd('\n').Split('\n'));
    }

    [Fact]
    public void Set_EveryKey_ShownByTheNextGet()
    {
        var other = WireGuardKey.GeneratePrivateKey();
        var psk = WireGuardKey.GeneratePresharedKey();
        var newPeer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var set = $"""
            set=1
            private_key={UapiClient.Hex(other)}
            listen_port=0
            public_key={UapiClient.Hex(_peerKey)}
            preshared_key={UapiClient.Hex(psk)}
            endpoint=[::1]:51821
            persistent_keepalive_interval=0
            replace_allowed_ips=true
            allowed_ip=198.19.7.0/24
            allowed_ip=fd00:7::/64
            public_key={UapiClient.Hex(newPeer)}
            allowed_ip=198.19.8.1/32
            protocol_version=1


            """.Replace("\r", string.Empty, StringComparison.Ordinal);
        Assert.Equal("errno=0\n", UapiClient.Request(_path, set));

        var answer = UapiClient.Request(_path, "get=1\n\n");
        Assert.Equal([UapiClient.Hex(other)], UapiClient.Values(answer, "private_key"));
        Assert.Equal([UapiClient.Hex(_peerKey), UapiClient.Hex(newPeer)], UapiClient.Values(answer, "public_key"));
        Assert.Equal([UapiClient.Hex(psk), new string('0', 64)], UapiClient.Values(answer, "preshared_key"));
        Assert.Equal(["[::1]:51821"], UapiClient.Values(answer, "endpoint"));
        Assert.Equal(["0", "0"], UapiClient.Values(answer, "persistent_keepalive_interval"));
        Assert.Equal(["198.19.7.0/24", "fd00:7::/64", "198.19.8.1/32"], UapiClient.Values(answer, "allowed_ip"));
        Assert.Equal(other.DerivePublicKey(), _device.Engine.PublicKey);
    }

    [Fact]
    public void Set_BadLineAfterGoodOnes_ChangesNothing()
    {
        var before = UapiClient.Request(_path, "get=1\n\n");
        var newPeer = WireGuardKey.GeneratePrivateKey().DerivePublicKey();
        var answer = UapiClient.Request(
            _path,
            $"set=1\nreplace_peers=true\npublic_key={UapiClient.Hex(newPeer)}\nallowed_ip=198.19.9.0/24\nallowed_ip=198.19.9.0/99\n\n");

        Assert.Equal("errno=-22\n", answer);
        Assert.Equal(before, UapiClient.Request(_path, "get=1\n\n"));
    }

    [Fact]
    public void Set_ListenPortInUse_AnswersEaddrinuseAndKeepsThePort()
    {
        using var taken = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetworkV6, System.Net.Sockets.SocketType.Dgram, System.Net.Sockets.ProtocolType.Udp);
        taken.DualMode = true;
        taken.Bind(new IPEndPoint(IPAddress.IPv6Any, 0));
        var port = ((IPEndPoint)taken.LocalEndPoint!).Port;
        var listening = _device.ListenPort;

        Assert.Equal("errno=-98\n", UapiClient.Request(_path, $"set=1\nlisten_port={port}\nreplace_peers=true\n\n"));
        Assert.Equal(listening, _device.ListenPort);
        Assert.Single(_device.Engine.GetPeers());
    }

    [Fact]
    public void Set_ListenPort_RebindsAndTheOldPortIsFreedSoon()
    {
        var old = _device.ListenPort;
        int port;
        using (var probe = new System.Net.Sockets.UdpClient(0))
        {
            port = ((IPEndPoint)probe.Client.LocalEndPoint!).Port;
        }

        Assert.Equal("errno=0\n", UapiClient.Request(_path, $"set=1\nlisten_port={port}\n\n"));
        Assert.Equal(port, _device.ListenPort);
        Assert.Equal([port.ToString(System.Globalization.CultureInfo.InvariantCulture)], UapiClient.Values(UapiClient.Request(_path, "get=1\n\n"), "listen_port"));

        // The old socket closes after the loops' next turn (0.5 s): binding its port then succeeds, within 10 s.
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (true)
        {
            try
            {
                using var again = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetworkV6, System.Net.Sockets.SocketType.Dgram, System.Net.Sockets.ProtocolType.Udp) { DualMode = true };
                again.Bind(new IPEndPoint(IPAddress.IPv6Any, old));
                break;
            }
            catch (System.Net.Sockets.SocketException) when (DateTime.UtcNow < deadline)
            {
                Thread.Sleep(100);
            }
        }
    }

    [Fact]
    public void Connection_LineTooLong_ClosesOnlyThatConnection()
    {
        using var bad = new UapiClient(_path);
        bad.SendRaw(System.Text.Encoding.ASCII.GetBytes("set=1\nallowed_ip=" + new string('1', 100_000)));
        Assert.Equal("errno=-5\n\n", bad.ReadUntilClosed(TimeSpan.FromSeconds(10)));

        using var good = new UapiClient(_path);
        Assert.EndsWith("errno=0\n", good.Send("get=1\n\n"), StringComparison.Ordinal);
        Assert.EndsWith("errno=0\n", good.Send("get=1\n\n"), StringComparison.Ordinal);
    }

    [Fact]
    public void Connection_StuckClient_DoesNotHoldUpOthers()
    {
        using var stuck = new UapiClient(_path);
        stuck.SendRaw("set=1\nlisten_port=0\n"u8.ToArray());
        Assert.EndsWith("errno=0\n", UapiClient.Request(_path, "get=1\n\n"), StringComparison.Ordinal);
    }

    [Fact]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Start_SocketFile_IsOwnerOnlyAndRemovedOnDispose()
    {
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(_path));
        Assert.Throws<IOException>(() => WireGuardControlSocket.Start(_device, _path));
        _control.Dispose();
        Assert.False(File.Exists(_path));
    }

    [Fact]
    public void Start_StaleSocketFile_IsReplaced()
    {
        // A socket file nobody listens on, as a killed process leaves it (.NET unlinks the path it bound on dispose,
        // so the file is moved away from that path first).
        var stale = _path + ".stale";
        using (var old = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.Unix, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Unspecified))
        {
            old.Bind(new System.Net.Sockets.UnixDomainSocketEndPoint(_path + ".bound"));
            File.Move(_path + ".bound", stale);
        }

        Assert.True(File.Exists(stale));
        using var control = WireGuardControlSocket.Start(_device, stale);
        Assert.EndsWith("errno=0\n", UapiClient.Request(stale, "get=1\n\n"), StringComparison.Ordinal);
    }
}
