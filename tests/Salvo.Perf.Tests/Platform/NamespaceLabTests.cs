using Salvo.Perf.Platform;
using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Tests.Platform;

/// <summary>The one namespace lab 'salvo lab' and 'salvo tunnel bench' run on.</summary>
public sealed class NamespaceLabTests
{
    /// <summary>This test's own prefix, so that no other lab's namespaces are touched.</summary>
    private const string Prefix = "salvo-nslab-test-";

    [RequiresFact(Requirement.VethLab)]
    public void NamespaceLab_JoinsTwoNamespacesThatReachEachOther_AndRemovesThemOnDispose()
    {
        string hostA;
        using (var lab = new NamespaceLab(Prefix, "snt"))
        {
            hostA = lab.HostA;
            var (exitCode, output) = ChildProcess.Run("ping", ["-c", "1", "-W", "5", NamespaceLab.AddressB], timeoutSeconds: 30, inNamespace: lab.HostA);

            Assert.True(exitCode == 0, output);
            Assert.Contains($"{NamespaceLab.AddressA}/24", ChildProcess.Run("ip", ["-n", lab.HostA, "address", "show", "dev", lab.DeviceA]).Output, StringComparison.Ordinal);
            Assert.Contains($"mtu {NamespaceLab.Mtu}", ChildProcess.Run("ip", ["-n", lab.HostB, "link", "show", "dev", lab.DeviceB]).Output, StringComparison.Ordinal);
        }

        Assert.DoesNotContain(hostA, ChildProcess.Run("ip", ["netns", "list"]).Output, StringComparison.Ordinal);
    }

    [RequiresFact(Requirement.VethLab)]
    public void NamespaceLab_PermanentNeighbours_AreEachOthersEthernetAddress()
    {
        using var lab = new NamespaceLab(Prefix, "snt");

        lab.AddPermanentNeighbours();

        var neighbours = ChildProcess.Run("ip", ["-n", lab.HostA, "neigh", "show", "dev", lab.DeviceA]).Output;
        Assert.Contains($"{NamespaceLab.AddressB} lladdr", neighbours, StringComparison.Ordinal);
        Assert.Contains("PERMANENT", neighbours, StringComparison.Ordinal);
    }
}
