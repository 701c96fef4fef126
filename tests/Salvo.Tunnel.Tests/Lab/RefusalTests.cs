namespace Salvo.Tunnel.Tests.Lab;

/// <summary>What the tunnel must refuse in the lab: a peer with a key it does not know, a source outside AllowedIPs.</summary>
[Collection(TunnelLabCollection.Name)]
public sealed class RefusalTests
{
    [RequiresFact(Requirement.TunnelLab)]
    public void WrongKey_HandshakeRefusedWithLoggedReason_NothingDelivered()
    {
        using var lab = new TunnelLab(TunnelEnd.Salvo, TunnelEnd.Salvo, keyBExpectsForA: WireGuardKey.GeneratePrivateKey().DerivePublicKey());

        var ping = TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 2);

        Assert.NotEqual(0, ping.ExitCode);
        var b = lab.SalvoB!.Engine.Counters;
        Assert.True(b[TunnelDropReason.UnknownPeer] >= 1);
        Assert.Equal(0, b.HandshakesAnswered);
        Assert.Equal(0, b.PacketsReceived);
        Assert.Contains(lab.LoggerB.Entries, e => e.Contains("not a configured peer", StringComparison.Ordinal) && e.Contains("198.18.0.1", StringComparison.Ordinal));
    }

    [RequiresFact(Requirement.TunnelLab | Requirement.WireGuardGo)]
    public void SourceOutsideAllowedIps_RefusedWithLoggedReason_NothingDelivered_AllowedSourceStillPasses()
    {
        using var lab = new TunnelLab(TunnelEnd.WireGuardGo, TunnelEnd.Salvo);
        Salvo.Tests.Lab.NetworkLab.Exec(lab.HostA, "ip", "address add 198.19.0.9/32 dev tun0");

        var ping = TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 2, from: "198.19.0.9");

        Assert.NotEqual(0, ping.ExitCode);
        var b = lab.SalvoB!.Engine.Counters;
        Assert.True(b.HandshakesAnswered >= 1);
        Assert.Equal(2, b[TunnelDropReason.SourceNotAllowed]);
        Assert.Equal(0, b.PacketsReceived);
        Assert.Contains(lab.LoggerB.Entries, e => e.Contains("outside the peer's AllowedIPs", StringComparison.Ordinal));

        Assert.Equal(0, TunnelLab.Ping(lab.HostA, TunnelLab.TunnelAddressB, count: 2).ExitCode);
        Assert.Equal(2, b.PacketsReceived);
    }
}
