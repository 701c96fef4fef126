using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Lab;

/// <summary>
/// Rekeying while a TCP transfer runs. Salvo's ends get a clock 60 times faster than real time (the engine's injected
/// <see cref="TimeProvider"/>), so REKEY_AFTER_TIME (120 s) comes every 2 real seconds and REJECT_AFTER_TIME (180 s)
/// after 3: a 6-second transfer crosses at least two rekeys, and an old key that lingered would be refused.
/// </summary>
[Collection(TunnelLabCollection.Name)]
public sealed class RekeyUnderTrafficTests
{
    private const double Speedup = 60;

    [RequiresFact(Requirement.TunnelLab)]
    public void SalvoToSalvo_TransferKeepsGoingAcrossRekeys()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo, new ScaledClock(Speedup));
        InteropTests.AssertEverySecondCarried(lab.Iperf(seconds: 6, reverse: false));
        // Both ends send (data one way, ACKs the other), so either may start a rekey; whoever initiated the current
        // session does the next one. Across the two ends at least three handshakes: the first and two rekeys.
        var initiated = lab.SalvoA!.Engine.Counters.HandshakesInitiated + lab.SalvoB!.Engine.Counters.HandshakesInitiated;
        Assert.True(initiated >= 3, $"{lab.SalvoA.Engine.Counters.HandshakesInitiated} + {lab.SalvoB.Engine.Counters.HandshakesInitiated} handshakes");
        Assert.Equal(0, lab.SalvoA.Engine.Counters[TunnelDropReason.Expired]);
        Assert.Equal(0, lab.SalvoB.Engine.Counters[TunnelDropReason.Expired]);
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void SalvoInitiatorToWireGuardGo_TransferKeepsGoingAcrossRekeys()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.WireGuardGo, new ScaledClock(Speedup));
        InteropTests.AssertEverySecondCarried(lab.Iperf(seconds: 6, reverse: true));
        Assert.True(lab.SalvoA!.Engine.Counters.HandshakesInitiated >= 3, $"{lab.SalvoA.Engine.Counters.HandshakesInitiated} handshakes");
        Assert.Equal(0, lab.SalvoA.Engine.Counters[TunnelDropReason.Expired]);
    }
}
