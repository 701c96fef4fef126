using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// A running device answers handshakes on a thread of its own, below the data threads' priority: a storm of
/// initiations fills its bounded queue, the overflow is dropped and counted, and the established peer's packets keep
/// crossing meanwhile, because the inbound loop only copies handshake messages and goes on.
/// </summary>
public sealed class HandshakeQueueDeviceTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    [Fact]
    public void InitiationStorm_WhileTheHandshakeThreadIsBusy_DataKeepsCrossing_AndTheOverflowIsCounted()
    {
        var gated = new GatedKeyAgreement(TunnelCrypto.Default.KeyAgreement);
        using var pair = new DevicePair(
            IPAddress.Loopback,
            TcpFallbackMode.Off,
            startB: (configuration, tun) => TunnelDevice.Start(configuration, tun, null, null, null, null, TunnelCrypto.Default with { KeyAgreement = gated }));
        pair.AssertCarriesBothWays(s_patience);
        var queue = pair.B.Handshakes.Queue;
        using var storm = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        storm.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var target = new IPEndPoint(IPAddress.Loopback, pair.B.ListenPort);

        // An initiation with a valid MAC1 reaches the X25519 operations, where the handshake thread now waits.
        gated.Arm();
        var initiator = new StormInitiator(WireGuardKey.GeneratePrivateKey(), pair.B.Engine.PublicKey!, 1, default, TimeProvider.System);
        storm.SendTo(initiator.Initiation, target);
        Assert.True(gated.Entered.Wait(s_patience), "The handshake thread never took the initiation.");

        // Sent in steps, each until the device has taken all so far: one the socket's buffer lost (a busy machine) goes again.
        var junk = new byte[MessageLayout.InitiationSize];
        MessageLayout.WriteType(junk, MessageType.Initiation);
        const int Step = 100;
        const int Sent = 1_500;
        long Taken() => queue.Count + pair.B.Engine.Counters[TunnelDropReason.HandshakeQueueFull];
        for (var goal = Step; goal <= Sent; goal += Step)
        {
            var deadline = DateTime.UtcNow + s_patience;
            while (Taken() < goal)
            {
                Assert.True(DateTime.UtcNow < deadline, $"The device took {Taken()} of {goal} junk initiations (datagrams received {pair.B.Engine.Counters.DatagramsInReceiveBatches}; {string.Join(", ", pair.B.Engine.Counters.DropCounts().Where(d => d.Count > 0))}).");
                for (var i = Taken(); i < goal; i++)
                {
                    storm.SendTo(junk, target);
                }

                WaitUntil(() => Taken() >= goal, TimeSpan.FromMilliseconds(500));
            }
        }

        Assert.Equal(queue.Capacity, queue.Count);
        Assert.Equal(Sent - queue.Capacity, pair.B.Engine.Counters[TunnelDropReason.HandshakeQueueFull]);

        // The queue is full and its thread still waits: the established peer's packets cross both ways regardless.
        for (var i = 0; i < 5; i++)
        {
            pair.AssertCarriesBothWays(s_patience);
        }

        Assert.Equal(queue.Capacity, queue.Count);
        gated.Release();
        WaitUntil(() => pair.B.Engine.Counters[TunnelDropReason.InvalidMac1] == queue.Capacity, "the queued junk refused by the handshake thread");
        Assert.Equal(0, queue.Count);
    }

    [Fact]
    public void HandshakeThread_RunsFiveNiceLevelsBelowTheDataThreads()
    {
        using var pair = new DevicePair(IPAddress.Loopback, TcpFallbackMode.Off);
        WaitUntil(() => pair.B.Handshakes.RunsBelowData, "the handshake thread's priority lowered");
        var data = NiceOfThread("b in");
        Assert.Equal(data, NiceOfThread("b out"));
        Assert.Equal(Math.Min(19, data + HandshakeThread.NiceLevelsBelowData), NiceOfThread("b hs"));
    }

    /// <summary>The nice value of this process's thread named <paramref name="name"/> (proc(5): field 19 of its stat).</summary>
    private static int NiceOfThread(string name)
    {
        foreach (var task in Directory.GetDirectories("/proc/self/task"))
        {
            if (File.ReadAllText(Path.Combine(task, "comm")).TrimEnd('\n') == name)
            {
                var stat = File.ReadAllText(Path.Combine(task, "stat"));
                var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
                return int.Parse(fields[16], CultureInfo.InvariantCulture);
            }
        }

        throw new InvalidOperationException($"No thread named '{name}'.");
    }

    private static void WaitUntil(Func<bool> condition, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (!condition() && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(5);
        }
    }

    private static void WaitUntil(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"Timed out waiting for {what}.");
            Thread.Sleep(5);
        }
    }
}
