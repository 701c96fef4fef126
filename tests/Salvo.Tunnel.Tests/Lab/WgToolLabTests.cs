using System.Runtime.Versioning;
using Salvo.Tests.Lab;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// The stock wg tool against a running Salvo device through its control socket, beside wireguard-go. Interface names
/// carry this process's PID: /var/run/wireguard is shared by every namespace and every test process.
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed class WgToolLabTests
{
    private static readonly string s_prefix = $"sw{Environment.ProcessId % 1_000_000}";

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void Wg_ShowSetSyncconfShowconf_WorkOnSalvoWhilePingLosesNothing()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.WireGuardGo, interfaceNames: ($"{s_prefix}a", $"{s_prefix}b"));
        var name = lab.InterfaceA;
        using var control = WireGuardControlSocket.Start(lab.SalvoA!);
        try
        {
            InteropTests.AssertNoLoss(TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, 3));

            // wg show dump, peer line: public key, preshared key, endpoint, allowed ips, latest handshake, rx, tx, keepalive.
            var dump = Wg("show", name, "dump").Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.Equal([lab.KeyA.ToString(), lab.KeyA.DerivePublicKey().ToString(), "51821", "off"], dump[0].Split('\t'));
            var peer = dump[1].Split('\t');
            Assert.Equal([lab.KeyB.DerivePublicKey().ToString(), "(none)", "198.18.0.2:51820", "198.19.0.2/32"], peer[..4]);
            Assert.True(long.Parse(peer[4], System.Globalization.CultureInfo.InvariantCulture) > 0, $"no handshake time: {dump[1]}");
            Assert.True(long.Parse(peer[5], System.Globalization.CultureInfo.InvariantCulture) > 0 && long.Parse(peer[6], System.Globalization.CultureInfo.InvariantCulture) > 0, $"no transfer: {dump[1]}");
            var session = lab.SalvoA!.Engine.CurrentKeypairOf(lab.KeyB.DerivePublicKey());
            Assert.NotNull(session);

            var ping = Task.Run(() => TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, 25));
            var carol = WireGuardKey.GeneratePrivateKey().DerivePublicKey().ToString();
            Wg("set", name, "peer", carol, "allowed-ips", "198.19.5.0/24", "endpoint", "198.18.0.2:51999");
            Assert.Contains($"{carol}\t(none)\t198.18.0.2:51999\t198.19.5.0/24\t0\t", Wg("show", name, "dump"), StringComparison.Ordinal);
            Wg("set", name, "peer", carol, "allowed-ips", "198.19.6.0/24,fd00:6::/64");
            Assert.Contains("\t198.19.6.0/24,fd00:6::/64\t", Wg("show", name, "dump"), StringComparison.Ordinal);
            Wg("set", name, "peer", carol, "persistent-keepalive", "17");
            Assert.EndsWith("\t17", Wg("show", name, "dump").Split('\n', StringSplitOptions.RemoveEmptyEntries).Single(line => line.StartsWith(carol, StringComparison.Ordinal)), StringComparison.Ordinal);
            Wg("set", name, "peer", carol, "remove");
            Assert.DoesNotContain(carol, Wg("show", name, "dump"), StringComparison.Ordinal);

            // showconf round-trips through syncconf, and syncconf keeps the running session.
            var config = Wg("showconf", name);
            var file = Path.GetTempFileName();
            try
            {
                File.WriteAllText(file, config);
                Wg("syncconf", name, file);
            }
            finally
            {
                File.Delete(file);
            }

            Assert.Equal(config, Wg("showconf", name));
            Assert.Same(session, lab.SalvoA.Engine.CurrentKeypairOf(lab.KeyB.DerivePublicKey()));
            InteropTests.AssertNoLoss(ping.Result);
        }
        finally
        {
            File.Delete(WireGuardControlSocket.PathFor(lab.InterfaceB));
        }
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    [SupportedOSPlatform("linux")]
    public void WgShowAllDump_SalvoAndWireGuardGoWithOneConfiguration_HaveTheSameFields()
    {
        var salvoName = $"{s_prefix}s";
        var goName = $"{s_prefix}g";
        var configuration = $"""
            [Interface]
            PrivateKey = {WireGuardKey.GeneratePrivateKey()}
            FwMark = 0x1234

            [Peer]
            PublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}
            PresharedKey = {WireGuardKey.GeneratePresharedKey()}
            AllowedIPs = 198.19.0.0/24, fd00:19::/64
            Endpoint = 198.18.0.2:51820
            PersistentKeepalive = 25

            [Peer]
            PublicKey = {WireGuardKey.GeneratePrivateKey().DerivePublicKey()}
            AllowedIPs = 198.19.1.7/32
            """;
        using var lab = new NetworkLab();
        using var wireGuardGo = new WireGuardGoProcess(lab.HostA, goName, configuration);
        using var salvo = NetworkLab.InHost(lab.HostA, () => TunnelDevice.Start(WireGuardConfigParser.Parse(configuration), KernelTunDevice.Open(salvoName)));
        using var control = WireGuardControlSocket.Start(salvo);
        try
        {
            var lines = Wg("show", "all", "dump").Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.Equal(Fields(lines, goName), Fields(lines, salvoName));
            Assert.Equal(3, Fields(lines, salvoName).Count);

            // The mark is on the socket itself, not only in what get reports: SOL_SOCKET (1), SO_MARK (36).
            var mark = new byte[4];
            salvo.UdpSocket.Socket.GetRawSocketOption(1, 36, mark);
            Assert.Equal(0x1234u, BitConverter.ToUInt32(mark));
            Wg("set", salvoName, "fwmark", "0");
            salvo.UdpSocket.Socket.GetRawSocketOption(1, 36, mark);
            Assert.Equal(0u, BitConverter.ToUInt32(mark));
        }
        finally
        {
            File.Delete(WireGuardControlSocket.PathFor(goName));
        }
    }

    /// <summary>One device's dump lines with its name, listen port (random), handshake time and byte counts blanked, sorted.</summary>
    private static List<string> Fields(string[] lines, string name) =>
        [.. lines
            .Where(line => line.StartsWith(name + "\t", StringComparison.Ordinal))
            .Select(line => line.Split('\t')[1..])
            .Select(fields => fields.Length == 4
                ? string.Join('\t', fields[0], fields[1], "PORT", fields[3])
                : string.Join('\t', fields[0], fields[1], fields[2], fields[3], "TIME", "RX", "TX", fields[7]))
            .Order(StringComparer.Ordinal)];

    private static string Wg(params string[] arguments) => ExternalTool.Run(ExternalTool.Find("wg")!, arguments, timeoutMilliseconds: 10_000);
}
