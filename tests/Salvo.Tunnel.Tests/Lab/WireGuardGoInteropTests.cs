using System.Diagnostics;
using System.Net;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Pal.Linux;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// Salvo's tunnel in namespace A against stock wireguard-go (configured with wg setconf) in namespace B, over a
/// veth pair: 198.18.0.1 and .2 underneath, 198.19.0.1 and .2 through the tunnel. UDP echoes cross both ways
/// (sockets made inside each namespace, so no ping binary is needed).
/// </summary>
public sealed class WireGuardGoInteropTests
{
    private const int SalvoPort = 51821;
    private const int WireGuardGoPort = 51820;

    private static string? WhyUnavailable() =>
        NetworkLab.WhyUnavailable()
        ?? (ExternalTool.Find("wireguard-go") is null ? "wireguard-go is not installed" : null)
        ?? (ExternalTool.Find("wg") is null ? "wg is not installed" : null)
        ?? (File.Exists("/dev/net/tun") ? null : "/dev/net/tun is missing");

    [SkippableLabFact]
    public void UdpEcho_BothWays_ThroughSalvoAndWireGuardGo()
    {
        using var lab = new NetworkLab();
        var salvoKey = WireGuardKey.GeneratePrivateKey();
        var goKey = WireGuardKey.GeneratePrivateKey();
        var configuration = new TunnelConfiguration
        {
            PrivateKey = salvoKey,
            ListenPort = SalvoPort,
            Peers =
            [
                new PeerConfiguration
                {
                    PublicKey = goKey.DerivePublicKey(),
                    AllowedIps = [IPPrefix.Parse("198.19.0.2/32")],
                    Endpoint = new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), WireGuardGoPort),
                },
            ],
        };

        using var tunnel = NetworkLab.InHost(lab.HostA, () => TunnelDevice.Start(configuration, LinuxTunDevice.Open("salvot0")));
        Ip($"-n {lab.HostA} address add 198.19.0.1/24 dev salvot0");
        Ip($"-n {lab.HostA} link set dev salvot0 mtu 1420 up");

        var goStart = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in new[] { "netns", "exec", lab.HostB, ExternalTool.Find("wireguard-go")!, "-f", "wgt0" })
        {
            goStart.ArgumentList.Add(argument);
        }

        // wireguard-go refuses to run on Linux without this, pointing at the kernel module instead.
        goStart.Environment["WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD"] = "1";
        using var wireGuardGo = Process.Start(goStart)!;
        try
        {
            WaitForInterface(lab.HostB, "wgt0");
            var goConfig = Path.GetTempFileName();
            File.WriteAllText(goConfig, $"""
                [Interface]
                PrivateKey = {goKey}
                ListenPort = {WireGuardGoPort}

                [Peer]
                PublicKey = {salvoKey.DerivePublicKey()}
                AllowedIPs = 198.19.0.1/32
                Endpoint = {NetworkLab.AddressA}:{SalvoPort}
                """);
            try
            {
                NetworkLab.Exec(lab.HostB, ExternalTool.Find("wg")!, $"setconf wgt0 {goConfig}");
            }
            finally
            {
                File.Delete(goConfig);
            }

            Ip($"-n {lab.HostB} address add 198.19.0.2/24 dev wgt0");
            Ip($"-n {lab.HostB} link set dev wgt0 mtu 1420 up");

            using var socketA = NetworkLab.InHost(lab.HostA, () => BoundSocket("198.19.0.1"));
            using var socketB = NetworkLab.InHost(lab.HostB, () => BoundSocket("198.19.0.2"));
            Assert.Equal("salvo to wireguard-go", CrossTunnel(socketA, socketB, "salvo to wireguard-go"));
            Assert.Equal("wireguard-go to salvo", CrossTunnel(socketB, socketA, "wireguard-go to salvo"));

            var shown = NetworkLab.Exec(lab.HostB, ExternalTool.Find("wg")!, "show wgt0 latest-handshakes");
            Assert.Contains(salvoKey.DerivePublicKey().ToString(), shown, StringComparison.Ordinal);
            Assert.DoesNotContain("\t0\n", shown, StringComparison.Ordinal);
            Assert.True(tunnel.Engine.GetPeers()[0].LatestHandshake is not null);
        }
        finally
        {
            if (!wireGuardGo.HasExited)
            {
                wireGuardGo.Kill();
                wireGuardGo.WaitForExit(5_000);
            }
        }
    }

    private static System.Net.Sockets.Socket BoundSocket(string address)
    {
        var socket = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Dgram, System.Net.Sockets.ProtocolType.Udp);
        socket.Bind(new IPEndPoint(IPAddress.Parse(address), 0));
        socket.ReceiveTimeout = 1_000;
        return socket;
    }

    /// <summary>Sends until one datagram arrives (the first may wait for the handshake); at most 10 tries of 1 s.</summary>
    private static string CrossTunnel(System.Net.Sockets.Socket from, System.Net.Sockets.Socket to, string text)
    {
        var buffer = new byte[1500];
        for (var attempt = 0; attempt < 10; attempt++)
        {
            from.SendTo(System.Text.Encoding.ASCII.GetBytes(text), to.LocalEndPoint!);
            try
            {
                var received = to.Receive(buffer);
                return System.Text.Encoding.ASCII.GetString(buffer, 0, received);
            }
            catch (System.Net.Sockets.SocketException e) when (e.SocketErrorCode == System.Net.Sockets.SocketError.TimedOut)
            {
            }
        }

        throw new TimeoutException($"'{text}' did not cross the tunnel in 10 tries");
    }

    private static void WaitForInterface(string host, string name)
    {
        for (var attempt = 0; attempt < 50; attempt++)
        {
            try
            {
                NetworkLab.Exec(host, "ip", $"link show {name}");
                return;
            }
            catch (InvalidOperationException)
            {
                Thread.Sleep(100);
            }
        }

        throw new TimeoutException($"{name} did not appear in {host} within 5 s");
    }

    private static void Ip(string arguments) => ExternalTool.Run(ExternalTool.Find("ip")!, arguments.Split(' '));

    private sealed class SkippableLabFactAttribute : FactAttribute
    {
        public SkippableLabFactAttribute()
        {
            if (WhyUnavailable() is { } why)
            {
                Skip = why;
            }
        }
    }
}
