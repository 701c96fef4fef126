using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Protocol;

/// <summary>
/// An end relaunched after a while down, while the end that survived keeps sending on the session it had with the
/// end before: the relaunched end starts the handshake on the first such message, so the survivor's traffic gets
/// through within one of its packets, however long the end was down.
/// </summary>
public sealed class RelaunchTests
{
    private static readonly TimeSpan s_step = TimeSpan.FromMilliseconds(100);

    /// <summary>How often the survivor sends, as `ping -i 0.2` does.</summary>
    private static readonly TimeSpan s_interval = TimeSpan.FromMilliseconds(200);

    [Theory]
    [InlineData(0.5)]
    [InlineData(2.5)]
    [InlineData(10)]
    public void SurvivorSendsOnItsOldSession_RelaunchedEndStartsTheHandshake_FirstPacketThroughAsFastAsAfterAPromptRelaunch(double downSeconds)
    {
        using var pair = new TunnelPair();
        pair.ConnectBothWays();
        pair.Alice.Dispose();
        var bobEndpoint = DatagramAddress.FromIPEndPoint(TunnelPair.BobEndpoint);

        // Bob pings every 0.2 s while Alice is down: his messages and initiations go nowhere.
        var elapsed = TimeSpan.Zero;
        for (; elapsed < TimeSpan.FromSeconds(downSeconds); elapsed += s_step)
        {
            Step(pair, elapsed);
            pair.BobOut.Datagrams.Clear();
        }

        using var relaunched = pair.CreateAlice();
        var aliceOut = new RecordingOutput();
        var since = TimeSpan.Zero;
        for (; since < TimeSpan.FromSeconds(30) && aliceOut.Packets.Count == 0; since += s_step, elapsed += s_step)
        {
            Step(pair, elapsed);
            relaunched.Tick(aliceOut);
            for (var round = 0; round < 5; round++)
            {
                foreach (var (bytes, _) in pair.BobOut.TakeDatagrams())
                {
                    relaunched.ReceiveDatagram(bytes, bobEndpoint, aliceOut);
                }

                foreach (var (bytes, _) in aliceOut.TakeDatagrams())
                {
                    pair.Bob.ReceiveDatagram(bytes, pair.AliceSource, pair.BobOut);
                }
            }
        }

        Assert.True(aliceOut.Packets.Count > 0, "no packet of Bob's reached the relaunched end in 30 s");
        // One of Bob's packets starts the handshake (it cannot be read) and the next gets through: 0.2-0.4 s. A prompt
        // relaunch took 0.6-1.1 s in the lab; an end down more than 2 s took 3.2-5.4 s, and with no TCP fallback 15 s.
        Assert.True(since <= 2 * s_interval + s_step, $"Bob's first packet reached the relaunched end {since.TotalSeconds:F1} s after it came back");
    }

    /// <summary>Advances the clock a step, runs Bob's timers, and has him send a packet every <see cref="s_interval"/>.</summary>
    private static void Step(TunnelPair pair, TimeSpan elapsed)
    {
        pair.Clock.Advance(s_step);
        pair.Bob.Tick(pair.BobOut);
        if (elapsed.Ticks % s_interval.Ticks == 0)
        {
            pair.BobSends(TunnelPair.IPv4Packet("198.19.0.2", "198.19.0.1"));
        }
    }
}
