using System.Globalization;
using Salvo.Perf.Cli;

namespace Salvo.Perf.Platform.Linux;

/// <summary>
/// Two network namespaces named after this process (PREFIX&lt;pid&gt;-a and -b) joined by a veth pair: A holds
/// 198.18.0.1/24, B 198.18.0.2/24 (RFC 2544's benchmarking range), MTU 1500, loopback up in both. Creating one first
/// removes what a killed run with the same prefix left behind (<see cref="StaleNamespaces"/>); disposing deletes both
/// namespaces, which takes the veth pair and every address with them. <c>salvo lab</c> and <c>salvo tunnel bench</c>
/// each run on one.
/// </summary>
internal sealed class NamespaceLab : IDisposable
{
    /// <summary>A's address.</summary>
    public const string AddressA = "198.18.0.1";

    /// <summary>B's address.</summary>
    public const string AddressB = "198.18.0.2";

    /// <summary>The veth MTU: Ethernet's, so 1,472 bytes is the largest UDP payload that is not fragmented.</summary>
    public const int Mtu = 1_500;

    /// <summary>Creates both namespaces and the veth pair; on any failure removes what it made and throws.</summary>
    /// <param name="prefix">The namespaces' prefix ("salvo-lab-"); the owner's process id follows it.</param>
    /// <param name="devicePrefix">The veth ends' prefix, at most 5 characters ("slv"): the pid and a letter follow it.</param>
    /// <exception cref="CliException">An <c>ip</c> command failed; its message says which and why.</exception>
    public NamespaceLab(string prefix, string devicePrefix)
    {
        StaleOwners = StaleNamespaces.Remove(prefix);
        var tag = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        HostA = $"{prefix}{tag}-a";
        HostB = $"{prefix}{tag}-b";
        // IFNAMSIZ is 16 with the NUL: a 5-character prefix + a pid of at most 7 digits (pid_max 4,194,304) + one letter fits.
        DeviceA = $"{devicePrefix}{tag}a";
        DeviceB = $"{devicePrefix}{tag}b";
        try
        {
            Ip("netns", "add", HostA);
            Ip("netns", "add", HostB);
            var mtu = Mtu.ToString(CultureInfo.InvariantCulture);
            Ip("link", "add", DeviceA, "mtu", mtu, "type", "veth", "peer", "name", DeviceB, "mtu", mtu);
            Join(HostA, DeviceA, AddressA);
            Join(HostB, DeviceB, AddressB);
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    /// <summary>The process ids (as text) whose namespaces were removed as stale when this one was made.</summary>
    public IReadOnlyList<string> StaleOwners { get; }

    /// <summary>The first namespace, holding <see cref="AddressA"/>.</summary>
    public string HostA { get; }

    /// <summary>The second namespace, holding <see cref="AddressB"/>.</summary>
    public string HostB { get; }

    /// <summary>A's end of the veth pair.</summary>
    public string DeviceA { get; }

    /// <summary>B's end of the veth pair.</summary>
    public string DeviceB { get; }

    /// <summary>
    /// Gives each end a permanent neighbour entry for the other's address, so no ARP runs during a measurement and an
    /// AF_XDP socket, which frames from the kernel's neighbour table, finds its peer there from the first datagram.
    /// </summary>
    public void AddPermanentNeighbours()
    {
        Neighbour(HostA, DeviceA, AddressB, EthernetAddress(HostB, DeviceB));
        Neighbour(HostB, DeviceB, AddressA, EthernetAddress(HostA, DeviceA));
    }

    /// <summary>Runs ip (iproute2) in this namespace and throws with its message when it fails.</summary>
    /// <exception cref="CliException">It exited with an error.</exception>
    public static void Ip(params string[] arguments)
    {
        var (exitCode, output) = ChildProcess.Run("ip", arguments);
        if (exitCode != 0)
        {
            throw new CliException($"ip {string.Join(' ', arguments)} failed: {output.Trim()}", CliException.FailureExitCode);
        }
    }

    public void Dispose()
    {
        foreach (var host in new[] { HostA, HostB })
        {
            // A namespace that was never made answers with an error; nothing is left to remove.
            ChildProcess.Run("ip", ["netns", "del", host]);
        }
    }

    /// <summary>The device's Ethernet address, from <c>ip -br link</c> ("NAME@PEER UP 1e:3a:... &lt;FLAGS&gt;").</summary>
    private static string EthernetAddress(string host, string device)
    {
        var (exitCode, output) = ChildProcess.Run("ip", ["-n", host, "-br", "link", "show", "dev", device]);
        var words = output.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return exitCode == 0 && words.Length >= 3 && words[2].Count(c => c == ':') == 5
            ? words[2]
            : throw new CliException($"no Ethernet address for {device} in {host}: {output.Trim()}", CliException.FailureExitCode);
    }

    private static void Neighbour(string host, string device, string address, string ethernet) =>
        Ip("-n", host, "neigh", "replace", address, "lladdr", ethernet, "dev", device, "nud", "permanent");

    private static void Join(string host, string device, string address)
    {
        Ip("link", "set", device, "netns", host);
        Ip("-n", host, "address", "add", address + "/24", "dev", device);
        Ip("-n", host, "link", "set", device, "up");
        Ip("-n", host, "link", "set", "lo", "up");
    }
}
