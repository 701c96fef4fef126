using System.Diagnostics;
using System.Globalization;
using Salvo.Tunnel.Paths;
using Xunit.Abstractions;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// The TCP fallback between two Salvo ends with real loss: an iperf3 TCP transfer runs through the tunnel while an
/// nftables rule in B drops the tunnel's UDP (both ways) from second 4 to second 14. Traffic must move to TCP, come
/// back to UDP once a probe gets through, and never stall longer than 4 s (detection, under 1 s by default, and the
/// retransmission timers of the TCP connection inside, doubling from 200 ms).
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed class TcpFallbackLabTests(ITestOutputHelper output)
{
    private const double IntervalSeconds = 0.5;
    private const double BlockAt = 4;
    private const double UnblockAt = 14;

    [RequiresFact(Requirement.TunnelLab, Tools = ["nft"])]
    public void UdpBlockedMidTransfer_AToB_MovesToTcpAndBack_WithoutLongStall() => Run(reverse: false);

    [RequiresFact(Requirement.TunnelLab, Tools = ["nft"])]
    public void UdpBlockedMidTransfer_BToA_TheResponderDials_MovesToTcpAndBack_WithoutLongStall() => Run(reverse: true);

    [RequiresFact(Requirement.TunnelLab, Tools = ["nft"])]
    public void UdpBlockedFromTheStart_TheTunnelComesUpOverTcp()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        using var block = new UdpBlock(lab.HostB, TunnelLab.PortB);
        block.Block();

        var clock = Stopwatch.StartNew();
        var reached = false;
        while (!reached && clock.Elapsed < TimeSpan.FromSeconds(20))
        {
            reached = TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode == 0;
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"first ping answered {clock.Elapsed.TotalSeconds:F1} s after the first was sent"));
        output.WriteLine(string.Join(Environment.NewLine, lab.LoggerA.Entries.Concat(lab.LoggerB.Entries)));
        Assert.True(reached, "no ping answered in 20 s with UDP blocked");
        InteropTests.AssertNoLoss(TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 5));
        Assert.Equal(TunnelPath.Tcp, lab.SalvoA!.Engine.GetPeers()[0].Path);
        Assert.Equal(TunnelPath.Tcp, lab.SalvoB!.Engine.GetPeers()[0].Path);
    }

    [RequiresFact(Requirement.TunnelLab, Tools = ["nft"])]
    public void TcpConnectionGoesSilent_TheDialerLeavesIt_AndComesBackOverANewOne()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        using var block = new UdpBlock(lab.HostB, TunnelLab.PortB);
        block.Block();
        Assert.True(PingUntilAnswered(lab, TimeSpan.FromSeconds(20)), "no ping answered over TCP in 20 s");

        // The connection A dialed, seen from B: "0 0 198.18.0.2:51820 198.18.0.1:PORT".
        var connections = Salvo.Tests.Lab.NetworkLab.Exec(lab.HostB, "ss", $"-Htn state established sport = :{TunnelLab.PortB}");
        var peerPort = int.Parse(connections.Trim().Split('\n')[0].Split(':')[^1], CultureInfo.InvariantCulture);
        block.SilenceTcpConnectionFrom(peerPort);

        var clock = Stopwatch.StartNew();
        var answered = PingUntilAnswered(lab, TimeSpan.FromSeconds(40));
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"first ping answered {clock.Elapsed.TotalSeconds:F1} s after the connection went silent"));
        output.WriteLine(string.Join(Environment.NewLine, lab.LoggerA.Entries.Concat(lab.LoggerB.Entries).Where(e => e.Contains("moved from", StringComparison.Ordinal))));
        Assert.True(answered, "no ping answered in 40 s after the connection went silent");
        Assert.Equal(1, lab.LoggerA.CountContaining("moved from TCP to UDP: no authenticated message over TCP for"));
        Assert.Equal(TunnelPath.Tcp, lab.SalvoA!.Engine.GetPeers()[0].Path);
        Assert.Equal(2, lab.SalvoA.Engine.Counters.PathSwitchesToTcp);
    }

    private static bool PingUntilAnswered(TunnelLab lab, TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < limit)
        {
            if (TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode == 0)
            {
                return true;
            }
        }

        return false;
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo, Tools = ["nft"])]
    public void WireGuardGoPeer_UdpBlockedForAWhile_TcpRefused_StaysOnUdpAndRecovers()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.WireGuardGo);
        using var block = new UdpBlock(lab.HostB, TunnelLab.PortB);
        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode);

        var transfer = Task.Run(() => lab.Iperf(seconds: 16, reverse: false, IntervalSeconds));
        Thread.Sleep(TimeSpan.FromSeconds(BlockAt));
        block.Block();
        Thread.Sleep(TimeSpan.FromSeconds(5));
        block.Unblock();
        var intervals = transfer.Result;
        output.WriteLine($"bytes per {IntervalSeconds} s: {TunnelLab.Describe(intervals)}");
        output.WriteLine(string.Join(Environment.NewLine, lab.LoggerA.Entries.Where(e => e.Contains("TCP", StringComparison.Ordinal))));

        // wireguard-go has no TCP listener: the dial is refused, the tunnel stays on UDP and carries on once UDP is back.
        Assert.True(lab.LoggerA.CountContaining("no TCP fallback to 198.18.0.2:51820") >= 1, string.Join("; ", lab.LoggerA.Entries));
        Assert.Equal(0, lab.SalvoA!.Engine.Counters.PathSwitchesToTcp);
        Assert.Equal(TunnelPath.Udp, lab.SalvoA.Engine.GetPeers()[0].Path);
        Assert.All(intervals.TakeLast(6), bytes => Assert.True(bytes > 0, $"no data after UDP came back: {TunnelLab.Describe(intervals)}"));
    }

    private void Run(bool reverse)
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        using var block = new UdpBlock(lab.HostB, TunnelLab.PortB);
        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 1).ExitCode);

        var clock = Stopwatch.StartNew();
        var transfer = Task.Run(() => lab.Iperf(seconds: 30, reverse, IntervalSeconds));
        var events = new List<(double At, string What)>();
        var (pathA, pathB) = (TunnelPath.Udp, TunnelPath.Udp);
        bool blocked = false, unblocked = false;
        try
        {
            while (!transfer.IsCompleted)
            {
                var now = clock.Elapsed.TotalSeconds;
                if (!blocked && now >= BlockAt)
                {
                    block.Block();
                    blocked = true;
                    events.Add((clock.Elapsed.TotalSeconds, "UDP blocked"));
                }

                if (!unblocked && now >= UnblockAt)
                {
                    block.Unblock();
                    unblocked = true;
                    events.Add((clock.Elapsed.TotalSeconds, "UDP unblocked"));
                }

                Note(events, clock, "A", lab.SalvoA!, ref pathA);
                Note(events, clock, "B", lab.SalvoB!, ref pathB);
                Thread.Sleep(20);
            }
        }
        finally
        {
            block.Unblock();
        }

        var intervals = transfer.Result;
        var stall = LongestStall(intervals);
        foreach (var (at, what) in events)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{at,6:F2} s  {what}"));
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"longest stall {stall:F1} s; bytes per {IntervalSeconds} s: {TunnelLab.Describe(intervals)}"));
        output.WriteLine($"messages dropped on a full TCP send queue: A {lab.SalvoA!.TcpSendDrops}, B {lab.SalvoB!.TcpSendDrops}");
        output.WriteLine(string.Join(Environment.NewLine, lab.LoggerA.Entries.Concat(lab.LoggerB.Entries).Where(e => e.Contains("moved from", StringComparison.Ordinal))));

        var a = lab.SalvoA!.Engine.Counters;
        var b = lab.SalvoB!.Engine.Counters;
        Assert.True(a.PathSwitchesToTcp >= 1 && b.PathSwitchesToTcp >= 1, $"switches to TCP: A {a.PathSwitchesToTcp}, B {b.PathSwitchesToTcp}");
        Assert.True(a.PathSwitchesToUdp >= 1 && b.PathSwitchesToUdp >= 1, $"switches to UDP: A {a.PathSwitchesToUdp}, B {b.PathSwitchesToUdp}");
        Assert.Equal(TunnelPath.Udp, pathA);
        Assert.Equal(TunnelPath.Udp, pathB);
        var firstTcp = events.First(e => e.What.EndsWith("TCP", StringComparison.Ordinal)).At;
        var blockedAt = events.First(e => e.What == "UDP blocked").At;
        Assert.InRange(firstTcp - blockedAt, 0, 4);
        Assert.True(stall <= 4, $"the transfer stalled {stall:F1} s; the bound is 4 s");
    }

    private static void Note(List<(double, string)> events, Stopwatch clock, string end, TunnelDevice device, ref TunnelPath last)
    {
        var path = device.Engine.GetPeers()[0].Path;
        if (path != last)
        {
            events.Add((clock.Elapsed.TotalSeconds, $"{end} moved to {path.ToString().ToUpperInvariant()}"));
            last = path;
        }
    }

    /// <summary>The longest run of intervals that carried under a tenth of the median, in seconds.</summary>
    private static double LongestStall(IReadOnlyList<long> intervals)
    {
        // iperf3's last interval may be a short remainder; the first holds slow start.
        var median = intervals.Order().ElementAt(intervals.Count / 2);
        var (longest, run) = (0, 0);
        foreach (var bytes in intervals)
        {
            run = bytes < median / 10 ? run + 1 : 0;
            longest = Math.Max(longest, run);
        }

        return longest * IntervalSeconds;
    }
}
