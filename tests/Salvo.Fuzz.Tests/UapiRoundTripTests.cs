using System.Net;
using System.Text;
using CsCheck;
using Salvo.Tunnel;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Control;
using Salvo.Tunnel.Routing;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Fuzz.Tests;

/// <summary>
/// The control socket's two directions against each other on a real device: a <c>set</c> request that parses and is
/// applied comes back from the <c>get</c> writer with the same keys, endpoints, keepalives and AllowedIPs, and what
/// get writes parses again with the set parser (as <c>wg showconf | wg setconf</c> relies on).
/// </summary>
public sealed class UapiRoundTripTests
{
    /// <summary>The keys set accepts; get also writes counters and handshake times, which only get knows.</summary>
    private static readonly HashSet<string> s_settable =
        ["private_key", "listen_port", "fwmark", "public_key", "preshared_key", "endpoint", "persistent_keepalive_interval", "allowed_ip", "protocol_version"];

    private sealed record PeerSample(byte[] PublicKey, byte[]? PresharedKey, IPEndPoint? Endpoint, int Keepalive, IPPrefix[] AllowedIps);

    [Fact]
    public void SetThenGet_RandomPeers_ComeBackAsSet()
    {
        var prefix = Gen.OneOf(
            Gen.Select(Gen.UInt, Gen.Int[0, 32]).Select((address, length) => IPPrefix.Parse($"{new IPAddress(address & MaskV4(length))}/{length}")),
            Gen.Select(Gen.UShort, Gen.Int[16, 64]).Select((group, length) => IPPrefix.Parse($"fd00:{group:x}::/{length}")));
        var endpoint = Gen.Select(Gen.Bool, Gen.Int[1, 65_535]).Select((v6, port) => new IPEndPoint(v6 ? IPAddress.IPv6Loopback : IPAddress.Loopback, port));
        var peer = Gen.Select(Gen.Byte.Array[32], Gen.Byte.Array[32].Null(), endpoint.Null(), Gen.Int[0, 3600], prefix.Array[0, 3])
            .Select((key, psk, end, keepalive, allowed) => new PeerSample(key, psk, end, keepalive, [.. allowed.DistinctBy(p => p.ToString())]));

        using var device = TunnelDevice.Start(new TunnelConfiguration { PrivateKey = WireGuardKey.GeneratePrivateKey() }, new MemoryTun("fuzzuapi0"));
        Gen.Select(Gen.Byte.Array[32], peer.Array[0, 3]).Sample((privateKey, peers) =>
        {
            var set = new StringBuilder($"private_key={Hex(privateKey)}\nreplace_peers=true\n");
            foreach (var p in peers)
            {
                set.Append($"public_key={Hex(p.PublicKey)}\npreshared_key={Hex(p.PresharedKey ?? new byte[32])}\n");
                set.Append(p.Endpoint is null ? string.Empty : $"endpoint={p.Endpoint}\n");
                set.Append($"persistent_keepalive_interval={p.Keepalive}\nreplace_allowed_ips=true\n");
                set.Append(string.Concat(p.AllowedIps.Select(a => $"allowed_ip={a}\n")));
            }

            Assert.Equal(UapiErrno.None, UapiSetParser.TryParse(Lines(set), out var change, out var setError));
            Assert.True(device.Configure(change, out var configureError) == UapiErrno.None, configureError ?? setError);

            var get = new StringBuilder();
            UapiGetWriter.Write(get, device);
            var errno = UapiSetParser.TryParse(Lines(get).Where(l => s_settable.Contains(l[..l.IndexOf('=', StringComparison.Ordinal)])), out var back, out var getError);

            Assert.True(errno == UapiErrno.None, getError);
            Assert.Equal(privateKey, back.PrivateKey!.Bytes.ToArray());
            Assert.Equal(peers.Length, back.Peers.Count);
            foreach (var p in peers)
            {
                var read = back.Peers.Single(b => b.PublicKey.Bytes.SequenceEqual(p.PublicKey));
                Assert.Equal(p.PresharedKey ?? new byte[32], read.PresharedKey?.Bytes.ToArray() ?? new byte[32]);
                Assert.Equal(p.Endpoint, read.Endpoint);
                Assert.Equal(p.Keepalive, (int)(read.PersistentKeepalive?.TotalSeconds ?? 0));
                Assert.Equal(p.AllowedIps.Select(a => a.ToString()).Order(), read.AllowedIps.Select(a => a.ToString()).Order());
            }
        }, iter: 40, threads: 1);
    }

    private static uint MaskV4(int length) => length == 0 ? 0 : (uint)System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(uint.MaxValue << (32 - length));

    private static string Hex(byte[] bytes) => Convert.ToHexStringLower(bytes);

    private static List<string> Lines(StringBuilder text) => [.. text.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries)];
}
