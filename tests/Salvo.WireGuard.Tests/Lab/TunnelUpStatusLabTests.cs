using System.Diagnostics;
using Salvo.Tests.Lab;
using Salvo.Tunnel;

namespace Salvo.WireGuard.Tests;

/// <summary>
/// <c>wireguard-salvo up</c> under umask 000 with links planted where it writes its status, as a child process in a lab
/// namespace with a mount namespace of its own, so its /run (a fresh tmpfs) is not the host's.
/// </summary>
[Collection(WholeProcessCollection.Name)]
public sealed class TunnelUpStatusLabTests : IDisposable
{
    private const string Untouched = "a root-owned file a local user linked to";
    private readonly string _folder = Directory.CreateTempSubdirectory("salvo-umask-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    [RequiresFact(Requirement.Netns)]
    public void Up_UmaskZeroAndPlantedLinks_ModesAreSetAndNoLinkIsFollowed()
    {
        using var lab = new NetworkLab();
        var name = $"ss{Environment.ProcessId % 100_000}";
        var config = Path.Combine(_folder, $"{name}.conf");
        File.WriteAllText(config,
            $"[Interface]\nPrivateKey = {WireGuardKey.GeneratePrivateKey()}\nListenPort = 0\n\n" +
            $"[Peer]\nPublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}\nAllowedIPs = 198.19.0.2/32\n");
        var next = Path.Combine(_folder, "next-target");
        var final = Path.Combine(_folder, "final-target");
        File.WriteAllText(next, Untouched);
        File.WriteAllText(final, Untouched);
        var status = $"/run/salvo-tunnel/{name}";
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        var daemon = Daemon.Dll;

        // The folder made under umask 000 is 0777, as a local user's would be; the links stand at the name the old code
        // wrote before its rename and at the status file's own name. At most 30 s of waiting for the first status.
        var script = $$"""
            mount -t tmpfs -o mode=0755 salvo-status /run || exit 2
            umask 000
            mkdir /run/salvo-tunnel
            ln -s {{next}} {{status}}.next
            ln -s {{final}} {{status}}
            {{dotnet}} {{daemon}} up {{config}} --name {{name}} -t 40 &
            pid=$!
            i=0
            while [ $i -lt 300 ] && { [ -L {{status}} ] || [ ! -f {{status}} ]; }; do sleep 0.1; i=$((i + 1)); done
            stat -c 'mode %a %U %F %n' /run/salvo-tunnel {{status}}
            kill -TERM $pid
            wait $pid
            echo "exit $?"
            """;
        var output = Run(["ip", "netns", "exec", lab.HostA, "unshare", "--mount", "sh", "-c", script]);

        Assert.Contains("mode 755 root directory /run/salvo-tunnel\n", output, StringComparison.Ordinal);
        Assert.Contains($"mode 644 root regular file {status}\n", output, StringComparison.Ordinal);
        Assert.Contains("exit 0", output, StringComparison.Ordinal);
        Assert.Equal(Untouched, File.ReadAllText(next));
        Assert.Equal(Untouched, File.ReadAllText(final));
    }

    private static string Run(string[] command)
    {
        var start = new ProcessStartInfo(command[0]) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var part in command[1..])
        {
            start.ArgumentList.Add(part);
        }

        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        Assert.True(process.WaitForExit(120_000), "the script did not end");
        return output + error.GetAwaiter().GetResult();
    }
}
