using System.Diagnostics;
using System.Text.Json;
using Salvo.Tests.Lab;
using Salvo.Tunnel;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// Stock wg-quick brings Salvo up as its user-space implementation (WG_QUICK_USERSPACE_IMPLEMENTATION naming the
/// wireguard-salvo executable directly, no command-line rewriting) in namespace A, with a full tunnel (AllowedIPs = 0.0.0.0/0: wg-quick's fwmark rules and nftables) and
/// PostUp/PostDown hooks, against wireguard-go under wg-quick in namespace B. B's endpoint address, 198.18.200.2 on its
/// loopback, is reachable from A only through A's default route (via the veth), so the tunnel's own datagrams must
/// carry the fwmark wg-quick sets to leave by it; 198.19.99.2, also on B's loopback, only through the tunnel.
/// </summary>
[Collection(WholeProcessCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class WgQuickLabTests
{
    private const string Endpoint = "198.18.200.2";
    private const string BeyondB = "198.19.99.2";
    private const string TunnelA = "198.19.7.1";
    private const string TunnelB = "198.19.7.2";

    [RequiresFact(Requirement.UserspaceLab, Tools = ["wg", "wg-quick", "wireguard-go", "ping", "iperf3", "nft"])]
    public void WgQuick_SalvoAsUserspaceImplementationWithAFullTunnel_CarriesTrafficAndDownRemovesEverything()
    {
        using var lab = new NetworkLab();
        var folder = Directory.CreateTempSubdirectory("salvo-wg-quick-").FullName;
        var nameA = UserspaceLab.NewInterfaceName('a');
        var nameB = UserspaceLab.NewInterfaceName('b');
        try
        {
            NetworkLab.Exec(lab.HostB, "ip", $"address add {Endpoint}/32 dev lo");
            NetworkLab.Exec(lab.HostB, "ip", $"address add {BeyondB}/32 dev lo");
            NetworkLab.Exec(lab.HostA, "ip", $"route add default via {NetworkLab.AddressB}");
            var keyA = WireGuardKey.GeneratePrivateKey();
            var keyB = WireGuardKey.GeneratePrivateKey();
            var fileA = Config(folder, nameA, $"""
                [Interface]
                PrivateKey = {keyA}
                Address = {TunnelA}/24
                PostUp = echo %i > {folder}/post-up
                PostDown = echo %i > {folder}/post-down

                [Peer]
                PublicKey = {keyB.DerivePublicKey()}
                AllowedIPs = 0.0.0.0/0
                Endpoint = {Endpoint}:51820
                """);
            var fileB = Config(folder, nameB, $"""
                [Interface]
                PrivateKey = {keyB}
                Address = {TunnelB}/24
                ListenPort = 51820

                [Peer]
                PublicKey = {keyA.DerivePublicKey()}
                AllowedIPs = {TunnelA}/32
                """);
            var path = $"PATH={WithoutKernelWireGuard(folder)}:{Environment.GetEnvironmentVariable("PATH")}";

            // wireguard-go refuses to run on Linux without its variable; wg-quick runs it by default.
            var upB = UserspaceLab.InHost(lab.HostB, "env", path, "WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1", "wg-quick", "up", fileB);
            Assert.True(upB.ExitCode == 0, upB.Error);
            var upA = UserspaceLab.InHost(lab.HostA, "env", path, $"WG_QUICK_USERSPACE_IMPLEMENTATION={UserspaceLab.Daemon}", "wg-quick", "up", fileA);
            Assert.True(upA.ExitCode == 0, upA.Error);
            Assert.Contains($"[#] {UserspaceLab.Daemon} {nameA}", upA.Error, StringComparison.Ordinal);
            Assert.Contains($"[#] wg set {nameA} fwmark 51820", upA.Error, StringComparison.Ordinal);
            Assert.Equal(nameA, File.ReadAllText(Path.Combine(folder, "post-up")).Trim());

            // The first packet waits for the handshake, which on a loaded machine can take past one ping's wait (a
            // lost initiation is resent after REKEY_TIMEOUT, 5 s): one ping with a 15 s deadline first, then none may be lost.
            var (firstExit, firstOutput, firstError) = UserspaceLab.InHost(lab.HostA, "ping", "-n", "-c", "1", "-w", "15", TunnelB);
            Assert.True(firstExit == 0, $"no handshake within 15 s: {firstOutput}{firstError}\n{upA.Error}");
            foreach (var to in new[] { TunnelB, BeyondB })
            {
                var (pingExit, pingOutput, pingError) = UserspaceLab.InHost(lab.HostA, "ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", to);
                Assert.True(pingExit == 0 && pingOutput.Contains("3 received", StringComparison.Ordinal), $"ping {to}: {pingOutput}{pingError}\n{upA.Error}");
            }

            Assert.True(IperfBytes(lab, BeyondB) > 0);

            // wg show dump: the interface line (private key, public key, port, fwmark), then the peer's: public key,
            // preshared key, endpoint, allowed ips, latest handshake, received, sent, keepalive.
            var dump = NetworkLab.Exec(lab.HostA, "wg", $"show {nameA} dump").Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.Equal(2, dump.Length);
            Assert.Equal("0xca6c", dump[0].Split('\t')[3]);
            var peer = dump[1].Split('\t');
            Assert.Equal(keyB.DerivePublicKey().ToString(), peer[0]);
            Assert.Equal($"{Endpoint}:51820", peer[2]);
            Assert.Equal("0.0.0.0/0", peer[3]);
            Assert.True(long.Parse(peer[4], System.Globalization.CultureInfo.InvariantCulture) > 0, $"no handshake: {dump[1]}");
            Assert.True(long.Parse(peer[5], System.Globalization.CultureInfo.InvariantCulture) > 100_000, $"little received: {dump[1]}");
            Assert.True(long.Parse(peer[6], System.Globalization.CultureInfo.InvariantCulture) > 100_000, $"little sent: {dump[1]}");

            var pid = UserspaceLab.DaemonProcessId(nameA);
            Assert.NotNull(pid);
            var downA = UserspaceLab.InHost(lab.HostA, "env", path, "wg-quick", "down", fileA);
            Assert.True(downA.ExitCode == 0, downA.Error);
            Assert.Equal(nameA, File.ReadAllText(Path.Combine(folder, "post-down")).Trim());
            Assert.False(UserspaceLab.HasInterface(lab.HostA, nameA));
            Assert.True(UserspaceLab.WaitForExit(pid.Value), $"salvo ({pid}) still runs 10 s after wg-quick down");
            Assert.False(File.Exists(UserspaceLab.SocketPath(nameA)), "the control socket was left behind");
        }
        finally
        {
            // A namespace lives on while a process runs in it: delete the interfaces, which ends both implementations.
            ExternalTool.RunAllowingFailure("ip", ["-n", lab.HostA, "link", "del", nameA]);
            ExternalTool.RunAllowingFailure("ip", ["-n", lab.HostB, "link", "del", nameB]);
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>Writes NAME.conf (wg-quick names the interface after the file) readable by root only, as wg-quick wants.</summary>
    internal static string Config(string folder, string name, string text)
    {
        var file = Path.Combine(folder, $"{name}.conf");
        File.WriteAllText(file, text);
        File.SetUnixFileMode(file, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        return file;
    }

    /// <summary>
    /// A folder holding an 'ip' that refuses "ip link add NAME type wireguard" and runs the real one otherwise: wg-quick
    /// takes the kernel module whenever that command works, and the user-space implementation only when it fails.
    /// </summary>
    internal static string WithoutKernelWireGuard(string folder)
    {
        var bin = Directory.CreateDirectory(Path.Combine(folder, "bin")).FullName;
        var ip = Path.Combine(bin, "ip");
        File.WriteAllText(ip, $"""
            #!/bin/sh
            case "$*" in *"type wireguard"*) echo "Error: Unknown device type." >&2; exit 2;; esac
            exec {ExternalTool.Find("ip")} "$@"

            """);
        File.SetUnixFileMode(ip, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        return bin;
    }

    /// <summary>Two seconds of iperf3 TCP from A to <paramref name="to"/> in B; returns the bytes B received.</summary>
    private static long IperfBytes(NetworkLab lab, string to)
    {
        var start = new ProcessStartInfo("ip") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in new[] { "netns", "exec", lab.HostB, ExternalTool.Find("iperf3")!, "-s", "-1", "-B", to, "-p", "5201" })
        {
            start.ArgumentList.Add(argument);
        }

        using var server = Process.Start(start)!;
        try
        {
            // The server needs a moment to listen: a refused connection is retried, 20 times 0.25 s at most.
            for (var attempt = 0; ; attempt++)
            {
                var (exit, output, error) = UserspaceLab.InHost(lab.HostA, "iperf3", "-c", to, "-p", "5201", "-t", "2", "-J");
                if (output.Contains("unable to connect", StringComparison.Ordinal) && attempt < 20)
                {
                    Thread.Sleep(250);
                    continue;
                }

                Assert.True(exit == 0, $"iperf3 failed ({exit}): {output}{error}");
                using var document = JsonDocument.Parse(output);
                return (long)document.RootElement.GetProperty("end").GetProperty("sum_received").GetProperty("bytes").GetDouble();
            }
        }
        finally
        {
            if (!server.HasExited)
            {
                server.Kill();
                server.WaitForExit(5_000);
            }
        }
    }
}
