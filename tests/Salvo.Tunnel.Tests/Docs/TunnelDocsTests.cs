using System.Net;
using System.Runtime.Versioning;
using Microsoft.Extensions.Logging.Abstractions;
using Salvo.Tests.Architecture;
using Salvo.Tests.Lab;

namespace Salvo.Tunnel.Tests.Docs;

/// <summary>docs/tunnel.md's "From code" example is this project's TunnelFromCode.cs, so it compiles against the public API; and it runs.</summary>
public sealed class TunnelDocsTests
{
    [Fact]
    public void FromCodeExample_IsTheCompiledExample()
    {
        var root = SourceTree.RepositoryRoot();
        var docs = File.ReadAllText(Path.Combine(root, "docs", "tunnel.md"));
        var start = docs.IndexOf("```csharp\n", docs.IndexOf("From code", StringComparison.Ordinal), StringComparison.Ordinal) + "```csharp\n".Length;
        var example = docs[start..docs.IndexOf("```", start, StringComparison.Ordinal)];
        var compiled = File.ReadAllText(Path.Combine(root, "tests", "Salvo.Tunnel.Tests", "Docs", "TunnelFromCode.cs"));

        Assert.True(example.Length > 500, "no csharp block after 'From code' in docs/tunnel.md");
        Assert.Equal(compiled, example);
    }

    [RequiresFact(Requirement.Netns)]
    [SupportedOSPlatform("linux")]
    public void FromCodeExample_InANamespace_StartsReportsAndStops()
    {
        using var lab = new NetworkLab();
        using var stopped = new CancellationTokenSource();
        stopped.Cancel();
        var output = new StringWriter();

        NetworkLab.InHost(lab.HostA, () =>
        {
            TunnelFromCode.Run(
                WireGuardKey.GeneratePrivateKey(), WireGuardKey.GeneratePrivateKey().DerivePublicKey(), new IPEndPoint(IPAddress.Parse(NetworkLab.AddressB), 51820),
                NullLogger.Instance, output, stopped.Token);
            return 0;
        });

        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.StartsWith("salvo0: UDP port 51820, public key ", lines[0], StringComparison.Ordinal);
        Assert.Contains(lines, line => line.StartsWith("peer ", StringComparison.Ordinal) && line.Contains($"at {NetworkLab.AddressB}:51820 over Udp", StringComparison.Ordinal));
        Assert.Contains(lines, line => line.EndsWith("(0 failed decryption)", StringComparison.Ordinal));
    }
}
