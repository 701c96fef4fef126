using System.Globalization;
using System.Text.RegularExpressions;
using Salvo.Tests.Lab;
using Xunit.Abstractions;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// A flood of handshake initiations with a valid MAC1 from forged on-link addresses, against a Salvo end that is
/// moving data: the cookie replies it provokes wait for ARP in the kernel, charged to the socket's send buffer.
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed partial class HandshakeFloodLabTests(ITestOutputHelper output)
{
    private const int FloodPerSecond = 10_000;

    /// <summary>Handshake refusals a flooded end counts for datagrams; the data path's reasons are left out.</summary>
    private static readonly TunnelDropReason[] s_handshakeReasons =
    [
        TunnelDropReason.Malformed, TunnelDropReason.InvalidMac1, TunnelDropReason.CookieRequired, TunnelDropReason.CookieReplyLimited,
        TunnelDropReason.HandshakeRateLimited, TunnelDropReason.HandshakeNotAuthenticated, TunnelDropReason.UnknownPeer,
        TunnelDropReason.StaleTimestamp, TunnelDropReason.InitiationFlood,
    ];

    [TunnelLabFact(TunnelEnd.Salvo, TunnelEnd.Salvo)]
    public void SpoofedFlood_TransferKeepsItsRate_RestartedEndReconnects_DropsAddUp()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo);
        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 2).ExitCode);
        var before = Rate(lab.Iperf(seconds: 3, reverse: true, intervalSeconds: 0.5));

        using var flood = new SpoofedHandshakeFlood(lab.HostA, lab.PublicKeyB);
        flood.Start(FloodPerSecond, limit: TimeSpan.FromSeconds(25));
        Thread.Sleep(1_000);
        var during = Rate(lab.Iperf(seconds: 4, reverse: true, intervalSeconds: 0.5));
        var socketMemory = NetworkLab.Exec(lab.HostB, "ss", $"-uamn sport = :{TunnelLab.PortB}");
        var counters = lab.SalvoB!.Engine.Counters;
        output.WriteLine($"B -> A: {before / 1e6:F0} MB/s alone, {during / 1e6:F0} MB/s ({during / before:F2}x) under {FloodPerSecond:N0} initiations/s from {SpoofedHandshakeFlood.Sources} forged addresses");
        output.WriteLine($"B's socket: {socketMemory.Trim()}");
        output.WriteLine(string.Join(", ", counters.DropCounts().Where(c => c.Count > 0).Select(c => $"{c.Reason} {c.Count}")) + $"; cookie replies {counters.CookieRepliesSent}");

        // Restarted during the flood, with A's endpoint: its first ping starts the handshake, and a reply must come in 3 s.
        var restarted = lab.RestartSalvoB();
        var ping = TunnelLab.Ping(lab.HostB, TunnelLab.TunnelAddressA, count: 15);
        var firstReply = FirstReply().Match(ping.Output);
        output.WriteLine($"restarted B: first ping reply {(firstReply.Success ? $"icmp_seq={firstReply.Groups[1].Value}" : "none")} (0.2 s apart)");

        flood.Stop();
        Assert.True(during >= 0.7 * before, $"{during / 1e6:F0} MB/s under the flood against {before / 1e6:F0} MB/s alone");
        Assert.True(firstReply.Success && int.Parse(firstReply.Groups[1].Value, CultureInfo.InvariantCulture) <= 15, ping.Output);
        Assert.True(restarted.Engine.Counters.HandshakesInitiated >= 1);

        // A bounded burst more, after the flood has drained: every initiation is counted once, under one reason.
        Thread.Sleep(1_500);
        var dropped = HandshakeDrops(restarted.Engine.Counters);
        const int Burst = 3_000;
        flood.SendCount(Burst, FloodPerSecond, limit: TimeSpan.FromSeconds(5));
        for (var i = 0; i < 100 && HandshakeDrops(restarted.Engine.Counters) - dropped < Burst; i++)
        {
            Thread.Sleep(50);
        }

        output.WriteLine(string.Join(", ", restarted.Engine.Counters.DropCounts().Where(c => c.Count > 0).Select(c => $"{c.Reason} {c.Count}")));
        Assert.Equal(Burst, HandshakeDrops(restarted.Engine.Counters) - dropped);
    }

    private static long HandshakeDrops(TunnelCounters counters) => s_handshakeReasons.Sum(reason => counters[reason]);

    /// <summary>Bytes a second over the intervals after the first second (slow start left out).</summary>
    private static double Rate(IReadOnlyList<long> halfSeconds) => halfSeconds.Skip(2).Average() * 2;

    [GeneratedRegex(@"icmp_seq=(\d+) ")]
    private static partial Regex FirstReply();
}
