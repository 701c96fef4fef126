using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel.Userspace;

namespace Salvo.Perf.Tests;

/// <summary>wg-quick runs "$WG_QUICK_USERSPACE_IMPLEMENTATION" IFACE: salvo takes that call for 'tunnel userspace IFACE', and nothing else for it.</summary>
public sealed class WgQuickInvocationTests
{
    private static readonly System.CommandLine.Command s_root = SalvoCli.Build(new CliConsole(TextWriter.Null, TextWriter.Null, isTerminal: false));

    [Theory]
    [InlineData("wg0")]
    [InlineData("salvo-a.1_=+")]
    public void Arguments_WgQuicksCall_RunsTunnelUserspace(string name)
    {
        Assert.Equal(["tunnel", "userspace", name], WgQuickInvocation.Arguments([name], "/usr/local/bin/salvo", s_root));
    }

    [Theory]
    [InlineData(null, new[] { "wg0" })]
    [InlineData("", new[] { "wg0" })]
    [InlineData("/usr/local/bin/salvo", new[] { "loopback" })]
    [InlineData("/usr/local/bin/salvo", new[] { "tunnel" })]
    [InlineData("/usr/local/bin/salvo", new[] { "--help" })]
    [InlineData("/usr/local/bin/salvo", new[] { "a-name-of-16-chr" })]
    [InlineData("/usr/local/bin/salvo", new[] { "wg 0" })]
    [InlineData("/usr/local/bin/salvo", new[] { "-f", "wg0" })]
    public void Arguments_AnythingElse_AreLeftAsTheyAre(string? implementation, string[] args)
    {
        Assert.Same(args, WgQuickInvocation.Arguments(args, implementation, s_root));
    }
}
