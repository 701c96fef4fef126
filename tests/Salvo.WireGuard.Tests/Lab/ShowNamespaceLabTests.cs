using Salvo.Perf.Tests.Reliability;
using Salvo.Tests.Lab;
using Salvo.Tunnel;
using Salvo.Tunnel.Control;
using Salvo.WireGuard.Status;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// Same-named tunnels in two network namespaces: /var/run/wireguard is shared by both, so <c>show</c> must list only the
/// tunnels whose daemon runs in the caller's namespace, and a second <c>up</c> of the name elsewhere must be refused.
/// </summary>
[Collection(WholeProcessCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ShowNamespaceLabTests : IDisposable
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(90);
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-show-ns-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [RequiresFact(Requirement.Netns)]
    public void Show_TunnelOfAnotherNamespace_NotListed_AndItsNameRefusedThere()
    {
        using var lab = new NetworkLab();
        var name = $"sn{Environment.ProcessId % 100_000}";
        using var first = Up(lab.HostA, name, "a", "-t", "60");
        first.Output.WaitFor($"wireguard-salvo: {name} up in", s_wait);

        // The test runs in the host's namespace: the socket file is there, its daemon is not.
        Assert.DoesNotContain(name, ShowCommand.Read(WireGuardControlSocket.DefaultDirectory, only: null, DateTimeOffset.UtcNow).Select(s => s.Interface));
        var notHere = Assert.Throws<DaemonException>(() => ShowCommand.Read(WireGuardControlSocket.DefaultDirectory, name, DateTimeOffset.UtcNow));
        Assert.Contains($"no running tunnel '{name}' in this network namespace (net:[", notHere.Message, StringComparison.Ordinal);

        // In its own namespace it is listed, with Salvo's counters read through get=salvo.
        using (var shown = DaemonChild.Start(["show", name, "--json"], wrapper: ["ip", "netns", "exec", lab.HostA]))
        {
            Assert.True(shown.Process.WaitForExit(s_wait), "show did not end");
            Assert.Equal(0, shown.Process.ExitCode);
            Assert.Contains($"\"interface\": \"{name}\"", shown.Output.Text, StringComparison.Ordinal);
            Assert.Contains("\"salvo\": true", shown.Output.Text, StringComparison.Ordinal);
            Assert.Contains("\"initiationsSent\": ", shown.Output.Text, StringComparison.Ordinal);
        }

        using (var second = Up(lab.HostB, name, "b", "-t", "10"))
        {
            Assert.True(second.Process.WaitForExit(s_wait), "the second up did not end");
            Assert.Equal(DaemonException.FailureExitCode, second.Process.ExitCode);
            var text = second.Output.Text;
            Assert.Contains($"/var/run/wireguard/{name}.sock is held by a live daemon (pid ", text, StringComparison.Ordinal);
            var theirsAt = text.IndexOf("network namespace net:[", StringComparison.Ordinal);
            Assert.True(theirsAt >= 0 && text.IndexOf("this one is net:[", theirsAt, StringComparison.Ordinal) > theirsAt, text);
        }

        first.Signal("TERM");
        Assert.True(first.Process.WaitForExit(s_wait), "the first up did not end after SIGTERM");
        Assert.Equal(0, first.Process.ExitCode);
    }

    private SalvoChild Up(string host, string name, string tag, params string[] options)
    {
        var config = Path.Combine(_folder, $"{name}{tag}.conf");
        File.WriteAllText(config,
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\n\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.91.2/32\nEndpoint = {NetworkLab.AddressB}:51820\n");
        File.SetUnixFileMode(config, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        return DaemonChild.Start(["up", config, "--name", name, .. options], wrapper: ["ip", "netns", "exec", host]);
    }
}
