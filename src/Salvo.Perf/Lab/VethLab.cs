using System.Globalization;
using Salvo.Perf.Cli;
using Salvo.Perf.Tunnel;

namespace Salvo.Perf.Lab;

/// <summary>
/// Two network namespaces named after this process (salvo-lab-&lt;pid&gt;-a and -b) joined by a veth pair: A holds
/// 198.18.0.1, B 198.18.0.2 (RFC 2544's benchmarking range), MTU 1500. Creating one first removes what a killed run
/// left behind; disposing deletes both namespaces, which takes the veth pair with them.
/// </summary>
internal sealed class VethLab : IDisposable
{
    /// <summary>The namespaces' common prefix; the owner's process id follows it.</summary>
    public const string Prefix = "salvo-lab-";

    /// <summary>The sender's and client's address, in A.</summary>
    public const string AddressA = "198.18.0.1";

    /// <summary>The receiver's and responder's address, in B.</summary>
    public const string AddressB = "198.18.0.2";

    /// <summary>The veth MTU: Ethernet's, so 1,472 bytes is the largest UDP payload that is not fragmented.</summary>
    public const int Mtu = 1_500;

    public VethLab()
    {
        StaleNamespaces.Remove(Prefix);
        var tag = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        HostA = $"{Prefix}{tag}-a";
        HostB = $"{Prefix}{tag}-b";
        // IFNAMSIZ is 16 with the NUL: "slv" + a pid of at most 7 digits (pid_max 4,194,304) + one letter fits.
        DeviceA = $"slv{tag}a";
        DeviceB = $"slv{tag}b";
        try
        {
            BenchTools.Ip("netns", "add", HostA);
            BenchTools.Ip("netns", "add", HostB);
            var mtu = Mtu.ToString(CultureInfo.InvariantCulture);
            BenchTools.Ip("link", "add", DeviceA, "mtu", mtu, "type", "veth", "peer", "name", DeviceB, "mtu", mtu);
            Join(HostA, DeviceA, AddressA);
            Join(HostB, DeviceB, AddressB);
            // Each end knows the other's Ethernet address from the start, so no ARP runs during a point and an AF_XDP
            // socket, which frames from the kernel's neighbour table, finds its peer there from the first datagram (from
            // fresh namespaces, rr at one in flight once saw no answer within 1 s; none lost with these entries).
            Neighbour(HostA, DeviceA, AddressB, EthernetAddress(HostB, DeviceB));
            Neighbour(HostB, DeviceB, AddressA, EthernetAddress(HostA, DeviceA));
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    /// <summary>The sending namespace.</summary>
    public string HostA { get; }

    /// <summary>The receiving namespace.</summary>
    public string HostB { get; }

    /// <summary>A's end of the veth pair.</summary>
    public string DeviceA { get; }

    /// <summary>B's end of the veth pair, where an AF_XDP socket in B binds.</summary>
    public string DeviceB { get; }

    public void Dispose()
    {
        foreach (var host in new[] { HostA, HostB })
        {
            // A namespace that was never made answers with an error; nothing is left to remove.
            BenchTools.Run("ip", ["netns", "del", host]);
        }
    }

    /// <summary>The device's Ethernet address, from <c>ip -br link</c> ("NAME@PEER UP 1e:3a:... &lt;FLAGS&gt;").</summary>
    private static string EthernetAddress(string host, string device)
    {
        var (exitCode, output) = BenchTools.Run("ip", ["-n", host, "-br", "link", "show", "dev", device]);
        var words = output.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return exitCode == 0 && words.Length >= 3 && words[2].Count(c => c == ':') == 5
            ? words[2]
            : throw new CliException($"lab: no Ethernet address for {device} in {host}: {output.Trim()}", CliException.FailureExitCode);
    }

    private static void Neighbour(string host, string device, string address, string ethernet) =>
        BenchTools.Ip("-n", host, "neigh", "replace", address, "lladdr", ethernet, "dev", device, "nud", "permanent");

    private static void Join(string host, string device, string address)
    {
        BenchTools.Ip("link", "set", device, "netns", host);
        BenchTools.Ip("-n", host, "address", "add", address + "/24", "dev", device);
        BenchTools.Ip("-n", host, "link", "set", device, "up");
        BenchTools.Ip("-n", host, "link", "set", "lo", "up");
    }
}
