using Salvo.Tests.Lab;
using Salvo.Tunnel;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// The Debian package end to end: apt-get installs it, wg-quick (with the environment its wg-quick@.service drop-in
/// sets, and the metrics endpoint's variable) brings the native wireguard-salvo up in namespace A against stock
/// wireguard-go in namespace B, pings cross, wg show and wireguard-salvo show see the handshake, Debian's Prometheus
/// scrapes the tunnel and answers its bytes back, and after wg-quick down and apt-get remove none of the package's
/// files is left.
/// </summary>
[Collection(WholeProcessCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DebianPackageLabTests
{
    private const string DropIn = "/usr/lib/systemd/system/wg-quick@.service.d/wireguard-salvo.conf";
    private const string TunnelA = "198.19.8.1";
    private const string TunnelB = "198.19.8.2";

    private const string MetricsListen = "127.0.0.1:9586";
    private const string PrometheusWeb = "127.0.0.1:9090";

    [RequiresFact(Requirement.DebianPackage)]
    public void Package_InstallsAndRunsUnderWgQuickAgainstWireGuardGo_AndRemovesEveryFile()
    {
        var deb = NativePackage.Deb;
        var files = PackageFiles(deb);
        Assert.Contains("/usr/bin/wireguard-salvo", files);
        Assert.Contains("/usr/share/man/man8/wireguard-salvo.8.gz", files);
        Assert.Contains("/usr/share/doc/wireguard-salvo/copyright", files);
        Assert.Contains(DropIn, files);

        using var lab = new NetworkLab();
        var folder = Directory.CreateTempSubdirectory("salvo-deb-lab-").FullName;
        var nameA = UserspaceLab.NewInterfaceName('p');
        var nameB = UserspaceLab.NewInterfaceName('q');
        var installed = false;
        try
        {
            Apt("install", "-y", deb);
            installed = true;
            Assert.True(File.Exists("/usr/bin/wireguard-salvo"));
            // The drop-in's one setting, as systemd would pass it to wg-quick.
            var environment = File.ReadAllLines(DropIn).Single(line => line.StartsWith("Environment=", StringComparison.Ordinal))["Environment=".Length..];
            Assert.Equal("WG_QUICK_USERSPACE_IMPLEMENTATION=wireguard-salvo", environment);

            var keyA = WireGuardKey.GeneratePrivateKey();
            var keyB = WireGuardKey.GeneratePrivateKey();
            var fileA = WgQuickLabTests.Config(folder, nameA, $"""
                [Interface]
                PrivateKey = {keyA}
                Address = {TunnelA}/24

                [Peer]
                PublicKey = {keyB.DerivePublicKey()}
                AllowedIPs = {TunnelB}/32
                Endpoint = {NetworkLab.AddressB}:51820
                """);
            var fileB = WgQuickLabTests.Config(folder, nameB, $"""
                [Interface]
                PrivateKey = {keyB}
                Address = {TunnelB}/24
                ListenPort = 51820

                [Peer]
                PublicKey = {keyA.DerivePublicKey()}
                AllowedIPs = {TunnelA}/32
                """);
            var path = $"PATH={WgQuickLabTests.WithoutKernelWireGuard(folder)}:{Environment.GetEnvironmentVariable("PATH")}";

            var upB = UserspaceLab.InHost(lab.HostB, "env", path, "WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1", "wg-quick", "up", fileB);
            Assert.True(upB.ExitCode == 0, upB.Error);
            // Namespace A is the test's own, so its loopback ports are free.
            var upA = UserspaceLab.InHost(lab.HostA, "env", path, environment, $"WIREGUARD_SALVO_METRICS_LISTEN={MetricsListen}", "wg-quick", "up", fileA);
            Assert.True(upA.ExitCode == 0, upA.Error);
            Assert.Contains($"[#] wireguard-salvo {nameA}", upA.Error, StringComparison.Ordinal);
            var pid = UserspaceLab.DaemonProcessId(nameA);
            Assert.NotNull(pid);
            Assert.Equal("/usr/bin/wireguard-salvo", new FileInfo($"/proc/{pid}/exe").LinkTarget);

            // The first packet waits for the handshake (a lost initiation is resent after REKEY_TIMEOUT, 5 s).
            var (firstExit, firstOutput, firstError) = UserspaceLab.InHost(lab.HostA, "ping", "-n", "-c", "1", "-w", "15", TunnelB);
            Assert.True(firstExit == 0, $"no handshake within 15 s: {firstOutput}{firstError}\n{upA.Error}");
            var (pingExit, pingOutput, pingError) = UserspaceLab.InHost(lab.HostA, "ping", "-n", "-c", "3", "-i", "0.2", "-W", "2", TunnelB);
            Assert.True(pingExit == 0 && pingOutput.Contains("3 received", StringComparison.Ordinal), $"{pingOutput}{pingError}");

            // wg show dump's peer line: public key, preshared key, endpoint, allowed ips, latest handshake, received, sent.
            var peer = NetworkLab.Exec(lab.HostA, "wg", $"show {nameA} dump").Split('\n', StringSplitOptions.RemoveEmptyEntries)[1].Split('\t');
            Assert.Equal(keyB.DerivePublicKey().ToString(), peer[0]);
            Assert.NotEqual("0", peer[4]);
            Assert.NotEqual("0", peer[5]);

            // The daemon's own show, through the same control socket, with Salvo's counters.
            var show = UserspaceLab.InHost(lab.HostA, "/usr/bin/wireguard-salvo", "show", nameA);
            Assert.True(show.ExitCode == 0, show.Error);
            Assert.Contains(keyB.DerivePublicKey().ToString(), show.Output, StringComparison.Ordinal);
            Assert.Contains("path: udp", show.Output, StringComparison.Ordinal);

            ScrapedByPrometheus(lab.HostA, folder, keyB.DerivePublicKey().ToString());

            var downA = UserspaceLab.InHost(lab.HostA, "env", path, "wg-quick", "down", fileA);
            Assert.True(downA.ExitCode == 0, downA.Error);
            Assert.True(UserspaceLab.WaitForExit(pid.Value), $"wireguard-salvo ({pid}) still runs 10 s after wg-quick down");
            Assert.False(File.Exists(UserspaceLab.SocketPath(nameA)), "the control socket was left behind");

            Apt("remove", "-y", "wireguard-salvo");
            installed = false;
            Assert.DoesNotContain(files, File.Exists);
        }
        finally
        {
            if (installed)
            {
                ExternalTool.RunAllowingFailure("apt-get", ["-o", "DPkg::Lock::Timeout=120", "remove", "-y", "wireguard-salvo"], timeoutMilliseconds: 180_000);
            }

            ExternalTool.RunAllowingFailure("ip", ["-n", lab.HostA, "link", "del", nameA]);
            ExternalTool.RunAllowingFailure("ip", ["-n", lab.HostB, "link", "del", nameB]);
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// Debian's Prometheus, in namespace A beside the daemon, scrapes its endpoint every second; promtool asks it (in the
    /// same namespace) for the peer's received bytes until a value above 0 comes back, within 60 s.
    /// </summary>
    private static void ScrapedByPrometheus(string host, string folder, string peerKey)
    {
        var config = Path.Combine(folder, "prometheus.yml");
        File.WriteAllText(config,
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n" +
            $"scrape_configs:\n  - job_name: wireguard-salvo\n    static_configs:\n      - targets: ['{MetricsListen}']\n");
        var start = new System.Diagnostics.ProcessStartInfo("ip") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in new[] { "netns", "exec", host, "prometheus", $"--config.file={config}", $"--storage.tsdb.path={Path.Combine(folder, "tsdb")}", $"--web.listen-address={PrometheusWeb}" })
        {
            start.ArgumentList.Add(argument);
        }

        using var prometheus = System.Diagnostics.Process.Start(start)!;
        _ = prometheus.StandardOutput.ReadToEndAsync();
        var log = prometheus.StandardError.ReadToEndAsync();
        try
        {
            var query = $"wireguard_salvo_peer_received_bytes_total{{public_key=\"{peerKey}\"}} > 0";
            var answer = "no answer";
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (clock.Elapsed < TimeSpan.FromSeconds(60))
            {
                var (exit, output, error) = UserspaceLab.InHost(host, "promtool", "query", "instant", $"http://{PrometheusWeb}", query);
                answer = exit == 0 ? output : error;
                if (exit == 0 && output.Contains(peerKey, StringComparison.Ordinal))
                {
                    return;
                }

                Thread.Sleep(500);
            }

            Assert.Fail($"Prometheus never answered the peer's bytes: {answer}");
        }
        finally
        {
            prometheus.Kill(entireProcessTree: true);
            prometheus.WaitForExit();
            Assert.DoesNotContain("level=error", log.Result, StringComparison.Ordinal);
        }
    }

    /// <summary>The package's regular files, as absolute paths (dpkg-deb -c lists "./usr/bin/..." with modes first).</summary>
    private static List<string> PackageFiles(string deb) =>
        [.. ExternalTool.Run("dpkg-deb", ["-c", deb])
            .Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Where(line => line.StartsWith('-'))
            .Select(line => line[(line.IndexOf("./", StringComparison.Ordinal) + 1)..])];

    /// <summary>apt-get, waiting up to 2 minutes for the dpkg lock another installer may hold.</summary>
    private static void Apt(params string[] arguments)
    {
        var (exit, output, error) = ExternalTool.RunAllowingFailure("apt-get", ["-o", "DPkg::Lock::Timeout=120", .. arguments], timeoutMilliseconds: 180_000);
        Assert.True(exit == 0, $"apt-get {string.Join(' ', arguments)} failed ({exit}): {output}{error}");
    }
}
