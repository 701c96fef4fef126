using Salvo.Tests.Lab;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// The tunnel follows its interface's MTU as <c>ip link set dev IF mtu N</c> changes it under running ends: at 1420,
/// 1500, 9000 and 65,475 (the largest packet a WireGuard datagram carries over IPv4) a ping of exactly the MTU
/// (don't-fragment) and a one-second TCP transfer cross both ways, Salvo against Salvo and against wireguard-go; then
/// the MTU goes back to 1420 and pings still cross. The veth underneath takes 65,535, so the outer datagrams are never
/// fragmented and the test sees only the tunnel.
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed class LargeMtuLabTests
{
    private const int LargestCarried = 65_475;
    private static readonly int[] s_mtus = [1_420, 1_500, 9_000, LargestCarried];

    [RequiresFact(Requirement.TunnelLab)]
    public void SalvoToSalvo_MtuRaisedWhileRunning_PingAndTcpCrossAtEachMtu()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo, underlayMtu: 65_535);
        AssertEachMtuCarries(lab);
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void SalvoToWireGuardGo_MtuRaisedWhileRunning_PingAndTcpCrossAtEachMtu()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.WireGuardGo, underlayMtu: 65_535);
        AssertEachMtuCarries(lab);
    }

    private static void AssertEachMtuCarries(TunnelLab lab)
    {
        // The first ping waits for the handshake.
        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode);
        foreach (var mtu in s_mtus)
        {
            SetMtu(lab, mtu);
            InteropTests.AssertNoLoss(PingFullSize(lab.HostA, TunnelLab.TunnelAddressB, mtu));
            InteropTests.AssertNoLoss(PingFullSize(lab.HostB, TunnelLab.TunnelAddressA, mtu));
            InteropTests.AssertEverySecondCarried(lab.Iperf(seconds: 1, reverse: false));
            InteropTests.AssertEverySecondCarried(lab.Iperf(seconds: 1, reverse: true));
        }

        SetMtu(lab, 1_420);
        InteropTests.AssertNoLoss(PingFullSize(lab.HostA, TunnelLab.TunnelAddressB, 1_420));
        InteropTests.AssertNoLoss(PingFullSize(lab.HostB, TunnelLab.TunnelAddressA, 1_420));

        foreach (var end in new[] { lab.SalvoA, lab.SalvoB }.OfType<TunnelDevice>())
        {
            InteropTests.AssertNothingRefused(end);
            Assert.Equal(0, end.TunWriteFailures);
            Assert.Null(end.LoopFailure);
        }
    }

    /// <summary>Sets both interfaces' MTU and waits (bounded) until each Salvo end pads for it: it looks once a tick.</summary>
    private static void SetMtu(TunnelLab lab, int mtu)
    {
        NetworkLab.Exec(lab.HostA, "ip", $"link set dev {lab.InterfaceA} mtu {mtu}");
        NetworkLab.Exec(lab.HostB, "ip", $"link set dev {lab.InterfaceB} mtu {mtu}");
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(5);
        foreach (var end in new[] { lab.SalvoA, lab.SalvoB }.OfType<TunnelDevice>())
        {
            while (end.Engine.Mtu != mtu)
            {
                Assert.True(DateTime.UtcNow < deadline, $"{end.InterfaceName} still pads for MTU {end.Engine.Mtu}, not {mtu}");
                Thread.Sleep(20);
            }
        }
    }

    /// <summary>Three pings whose IP packets are exactly <paramref name="mtu"/> bytes, with don't-fragment set, so none is cut into fragments before the tunnel.</summary>
    private static (int ExitCode, string Output) PingFullSize(string host, string to, int mtu)
    {
        string[] arguments = ["netns", "exec", host, ExternalTool.Find("ping")!, "-n", "-c", "3", "-i", "0.2", "-W", "2", "-M", "do", "-s", $"{mtu - 28}", to];
        var (exitCode, output, error) = ExternalTool.RunAllowingFailure("ip", arguments, timeoutMilliseconds: 30_000);
        return (exitCode, output + error);
    }
}
