using System.Security.Cryptography;
using Salvo.Tunnel.Control;

namespace Salvo.Tunnel.Tests.Control;

/// <summary>
/// What a large <c>wg setconf</c> costs the collector while it is parsed: every object made per peer lives until the
/// change is applied, so each is copied from generation to generation (at a million peers the collector was 41 % of
/// the daemon's CPU).
/// </summary>
public sealed class UapiSetParserAllocationTests
{
    private const int Peers = 100_000;

    /// <summary>
    /// The lines wg sends per peer for benchmarks/million-peers/peers.py's file: a key, a loopback endpoint, a /32 and a
    /// /128. The change held a list, its array and an address object per prefix, made an address object per endpoint and
    /// a closure per peer line: 612 bytes a peer (921dfc5); now the peer's change and one packed array of its prefixes,
    /// 196. The bound leaves room for the change's own list of peers growing by doubling.
    /// </summary>
    [Fact]
    public void Add_AHundredThousandPeers_AllocatesLittleMoreThanTheChangeItHolds()
    {
        var lines = SetLines(Peers);
        var parser = new UapiSetParser(UapiLimits.Default);
        parser.Add(lines[0].Text.AsSpan(0, lines[0].Length));

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 1; i < lines.Length; i++)
        {
            parser.Add(lines[i].Text.AsSpan(0, lines[i].Length));
        }

        var perPeer = (GC.GetAllocatedBytesForCurrentThread() - before) / Peers;

        Assert.Equal(0, parser.Errno);
        Assert.Equal(Peers, parser.Change.Peers.Count);
        Assert.InRange(perPeer, 0, 240);
    }

    [Fact]
    public void Add_PeerLines_ReadTheAddressesAsWritten()
    {
        var parser = new UapiSetParser(UapiLimits.Default);
        foreach (var line in SetLines(3))
        {
            parser.Add(line.Text.AsSpan(0, line.Length));
        }

        var peer = parser.Change.Peers[2];
        Assert.Equal(["10.0.0.4/32", "fd00:5a1::4/128"], peer.AllowedIps.Select(p => p.ToString()));
        Assert.Equal("127.0.0.1:10004", peer.Endpoint!.ToString());
    }

    /// <summary>The set's lines, each in a char array of its own made before the measurement.</summary>
    private static (char[] Text, int Length)[] SetLines(int peers)
    {
        var lines = new List<(char[], int)> { Line("replace_peers=true") };
        for (var i = 2; i < peers + 2; i++)
        {
            lines.Add(Line($"public_key={Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(WireGuardKey.Size))}"));
            lines.Add(Line($"endpoint=127.0.0.1:{10_000 + (i % 50_000)}"));
            lines.Add(Line("replace_allowed_ips=true"));
            lines.Add(Line($"allowed_ip=10.{i >> 16}.{(i >> 8) & 255}.{i & 255}/32"));
            lines.Add(Line($"allowed_ip=fd00:5a1::{i >> 16:x}:{i & 0xffff:x}/128"));
        }

        return [.. lines];
    }

    private static (char[], int) Line(string text) => (text.ToCharArray(), text.Length);
}
