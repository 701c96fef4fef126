using System.Net;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Tests;

/// <summary>A refused AF_XDP start says which interface and, when it is taken, that another AF_XDP program or socket holds it.</summary>
public sealed class AfXdpStartFailureTests
{
    private static readonly IPEndPoint s_local = new(IPAddress.Parse("10.99.0.1"), 47010);

    [Theory]
    [InlineData("Backend AfXdp cannot run on 10.99.0.1:47010: the AF_XDP socket for queue 0 of sx0: bind failed: EBUSY (another AF_XDP socket holds this queue: one AF_XDP socket per interface)")]
    [InlineData("Backend AfXdp cannot run on 10.99.0.1:47010: Interface sx0 already has an XDP program: id 7, generic. Only one XDP program per interface is supported")]
    public void InterfaceTaken_NamesTheInterfaceAndTheHolder(string library)
    {
        var error = AfXdpStartFailure.Describe(s_local, "sx0", new NotSupportedException(library));

        Assert.StartsWith("--backend afxdp: interface sx0 (10.99.0.1:47010) is held by another AF_XDP program or socket", error.Message, StringComparison.Ordinal);
        Assert.Equal(CliException.FailureExitCode, error.ExitCode);
    }

    [Fact]
    public void OtherRefusal_NamesWhereAndSaysWhy()
    {
        var error = AfXdpStartFailure.Describe(s_local, null, new NotSupportedException("Backend AfXdp needs LocalEndPoint bound to the address of one network interface"));

        Assert.Equal("--backend afxdp: cannot start on 10.99.0.1:47010: Backend AfXdp needs LocalEndPoint bound to the address of one network interface", error.Message);
        Assert.Equal(CliException.FailureExitCode, error.ExitCode);
    }

    [Fact]
    public void Loopback_InterfaceIsFound()
    {
        Assert.Equal("lo", AfXdpStartFailure.InterfaceOf(IPAddress.Loopback));
    }
}
