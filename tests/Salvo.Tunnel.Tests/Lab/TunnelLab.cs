using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// A tunnel between namespaces A and B of a <see cref="NetworkLab"/>: 198.18.0.1 and .2 underneath, 198.19.0.1 and .2
/// through the tunnel (MTU 1420), each end Salvo or wireguard-go. Only A knows its peer's endpoint, so A starts the
/// handshake (the initiator) and B learns A's address from it (the responder).
/// </summary>
internal sealed class TunnelLab : IDisposable
{
    public const string TunnelAddressA = "198.19.0.1";
    public const string TunnelAddressB = "198.19.0.2";
    private const int PortA = 51821;
    public const int PortB = 51820;
    private const string DefaultInterfaceName = "tun0";

    private readonly NetworkLab _lab;
    private readonly List<IDisposable> _ends = [];
    private readonly bool _offloads;

    /// <param name="a">What runs end A.</param>
    /// <param name="b">What runs end B.</param>
    /// <param name="salvoClock">The clock of the Salvo ends.</param>
    /// <param name="keyBExpectsForA">The public key B takes for A; A's own by default.</param>
    /// <param name="offloads">Whether Salvo's TUN devices ask for offloads.</param>
    /// <param name="interfaceNames">
    /// The TUN interfaces of A and B. Defaults to tun0 in both namespaces; a test that reaches an end through its
    /// control socket (/var/run/wireguard/NAME.sock, shared by every namespace and process) names them uniquely.
    /// </param>
    /// <param name="underlayMtu">The MTU of the veth pair under the tunnel. Defaults to 1500.</param>
    public TunnelLab(
        TunnelEnd a,
        TunnelEnd b,
        TimeProvider? salvoClock = null,
        WireGuardKey? keyBExpectsForA = null,
        bool offloads = true,
        (string A, string B)? interfaceNames = null,
        int underlayMtu = 1500)
    {
        _offloads = offloads;
        (InterfaceA, InterfaceB) = interfaceNames ?? (DefaultInterfaceName, DefaultInterfaceName);
        _lab = new NetworkLab(underlayMtu);
        try
        {
            var keyA = WireGuardKey.GeneratePrivateKey();
            var keyB = WireGuardKey.GeneratePrivateKey();
            KeyA = keyA;
            KeyB = keyB;
            SalvoA = Start(a, _lab.HostA, InterfaceA, keyA, PortA, keyB.DerivePublicKey(), TunnelAddressB, new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), PortB), salvoClock, LoggerA);
            SalvoB = Start(b, _lab.HostB, InterfaceB, keyB, PortB, keyBExpectsForA ?? keyA.DerivePublicKey(), TunnelAddressA, endpoint: null, salvoClock, LoggerB);
            Address(_lab.HostA, TunnelAddressA, InterfaceA);
            Address(_lab.HostB, TunnelAddressB, InterfaceB);
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    public string HostA => _lab.HostA;

    public string InterfaceA { get; }

    public string InterfaceB { get; }

    public WireGuardKey KeyA { get; } = null!;

    public WireGuardKey KeyB { get; } = null!;

    public string HostB => _lab.HostB;

    /// <summary>A's device when A is Salvo.</summary>
    public TunnelDevice? SalvoA { get; private set; }

    /// <summary>B's device when B is Salvo.</summary>
    public TunnelDevice? SalvoB { get; private set; }

    /// <summary>B's public key, which handshakes towards B need for MAC1.</summary>
    public WireGuardKey PublicKeyB => KeyB.DerivePublicKey();

    /// <summary>Stops Salvo A and starts it again with the same keys and configuration: its next packet starts a new handshake.</summary>
    public TunnelDevice RestartSalvoA()
    {
        Stop(SalvoA ?? throw new InvalidOperationException("A is not Salvo."));
        SalvoA = Start(TunnelEnd.Salvo, _lab.HostA, InterfaceA, KeyA, PortA, KeyB.DerivePublicKey(), TunnelAddressB, new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), PortB), clock: null, LoggerA);
        Address(_lab.HostA, TunnelAddressA, InterfaceA);
        return SalvoA!;
    }

    /// <summary>
    /// Stops Salvo B and starts it again with the same keys, now also knowing A's endpoint so it can start the handshake
    /// itself, as a restarted end with a full configuration would.
    /// </summary>
    public TunnelDevice RestartSalvoB()
    {
        Stop(SalvoB ?? throw new InvalidOperationException("B is not Salvo."));
        SalvoB = Start(TunnelEnd.Salvo, _lab.HostB, InterfaceB, KeyB, PortB, KeyA.DerivePublicKey(), TunnelAddressA, new IPEndPoint(IPAddress.Parse(NetworkLab.AddressA), PortA), clock: null, LoggerB);
        Address(_lab.HostB, TunnelAddressB, InterfaceB);
        return SalvoB!;
    }

    private void Stop(TunnelDevice device)
    {
        _ends.Remove(device);
        device.Dispose();
    }

    public RecordingLogger LoggerA { get; } = new();

    public RecordingLogger LoggerB { get; } = new();

    public static string? WhyUnavailable(params TunnelEnd[] ends) =>
        NetworkLab.WhyUnavailable()
        ?? (File.Exists("/dev/net/tun") ? null : "/dev/net/tun is missing")
        ?? (ExternalTool.Find("ping") is null ? "ping is not installed (apt-get install iputils-ping)" : null)
        ?? (ExternalTool.Find("iperf3") is null ? "iperf3 is not installed (apt-get install iperf3)" : null)
        ?? (ends.Contains(TunnelEnd.WireGuardGo) ? WireGuardGoProcess.WhyUnavailable() : null);

    /// <summary>
    /// Pings <paramref name="to"/> from <paramref name="host"/>, 0.2 s apart, waiting <paramref name="waitSeconds"/> for each
    /// reply (and for the last ones after the last ping); returns ping's exit code and output.
    /// </summary>
    public static (int ExitCode, string Output) Ping(string host, string to, int count, string? from = null, int waitSeconds = 2)
    {
        var arguments = new List<string> { "netns", "exec", host, ExternalTool.Find("ping")!, "-n", "-c", $"{count}", "-i", "0.2", "-W", $"{waitSeconds}", to };
        if (from is not null)
        {
            arguments.InsertRange(4, ["-I", from]);
        }

        var (exitCode, output, error) = ExternalTool.RunAllowingFailure("ip", arguments, timeoutMilliseconds: 30_000);
        return (exitCode, output + error);
    }

    /// <summary>
    /// One iperf3 TCP test of <paramref name="seconds"/> from A to B (or B to A when <paramref name="reverse"/>):
    /// server in B, client in A. Returns the bytes of each interval (<paramref name="intervalSeconds"/> long) as the client counted them.
    /// </summary>
    public IReadOnlyList<long> Iperf(int seconds, bool reverse, double intervalSeconds = 1)
    {
        var server = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in new[] { "netns", "exec", HostB, ExternalTool.Find("iperf3")!, "-s", "-1", "-B", TunnelAddressB, "-p", "5201" })
        {
            server.ArgumentList.Add(argument);
        }

        using var serverProcess = Process.Start(server)!;
        try
        {
            // The server needs a moment to listen: a refused connection is retried, 20 times 0.25 s at most.
            for (var attempt = 0; ; attempt++)
            {
                string[] client = ["netns", "exec", HostA, ExternalTool.Find("iperf3")!, "-c", TunnelAddressB, "-p", "5201", "-t", $"{seconds}", "-i", intervalSeconds.ToString(CultureInfo.InvariantCulture), "-J", .. reverse ? ["-R"] : Array.Empty<string>()];
                var (exitCode, output, _) = ExternalTool.RunAllowingFailure("ip", client, timeoutMilliseconds: (seconds + 20) * 1_000);
                // With -J, iperf3 3.12 reports a refused connection in the JSON and may still exit 0.
                if (output.Contains("unable to connect", StringComparison.Ordinal) && attempt < 20)
                {
                    Thread.Sleep(250);
                    continue;
                }

                return exitCode == 0 ? IntervalBytes(output) : throw new InvalidOperationException($"iperf3 failed ({exitCode}): {output}");
            }
        }
        finally
        {
            if (!serverProcess.HasExited)
            {
                serverProcess.Kill();
                serverProcess.WaitForExit(5_000);
            }
        }
    }

    public void Dispose()
    {
        foreach (var end in _ends)
        {
            end.Dispose();
        }

        _lab.Dispose();
    }

    private static IReadOnlyList<long> IntervalBytes(string json)
    {
        using var document = JsonDocument.Parse(json);
        var intervals = document.RootElement.GetProperty("intervals").EnumerateArray().Select(i => (long)i.GetProperty("sum").GetProperty("bytes").GetDouble()).ToList();
        return intervals.Count > 0 ? intervals : throw new InvalidOperationException($"iperf3 reported no intervals: {json}");
    }

    private static void Address(string host, string address, string interfaceName)
    {
        NetworkLab.Exec(host, "ip", $"address add {address}/24 dev {interfaceName}");
        NetworkLab.Exec(host, "ip", $"link set dev {interfaceName} mtu 1420 up");
    }

    private TunnelDevice? Start(
        TunnelEnd end, string host, string interfaceName, WireGuardKey key, int port, WireGuardKey peerKey, string peerAddress, IPEndPoint? endpoint, TimeProvider? clock, RecordingLogger logger)
    {
        if (end == TunnelEnd.WireGuardGo)
        {
            var endpointLine = endpoint is null ? string.Empty : $"Endpoint = {endpoint}";
            _ends.Add(new WireGuardGoProcess(host, interfaceName, $"""
                [Interface]
                PrivateKey = {key}
                ListenPort = {port}

                [Peer]
                PublicKey = {peerKey}
                AllowedIPs = {peerAddress}/32
                {endpointLine}
                """));
            return null;
        }

        var configuration = new TunnelConfiguration
        {
            PrivateKey = key,
            ListenPort = port,
            Peers = [new PeerConfiguration { PublicKey = peerKey, AllowedIps = [IPPrefix.Parse($"{peerAddress}/32")], Endpoint = endpoint }],
        };
        var device = NetworkLab.InHost(host, () => TunnelDevice.Start(configuration, OpenTun(interfaceName, _offloads), clock, logger));
        _ends.Add(device);
        return device;
    }

    /// <summary>The kernel's TUN device; the lab exists only where <see cref="NetworkLab.WhyUnavailable"/> found Linux.</summary>
    private static ITunDevice OpenTun(string interfaceName, bool offloads) =>
        OperatingSystem.IsLinux() ? KernelTunDevice.Open(interfaceName, offloads) : throw new PlatformNotSupportedException("The tunnel lab needs Linux.");

    /// <summary>The text of a count, for assertion messages.</summary>
    public static string Describe(IReadOnlyList<long> intervals) => string.Join(", ", intervals.Select(b => b.ToString(CultureInfo.InvariantCulture)));
}
