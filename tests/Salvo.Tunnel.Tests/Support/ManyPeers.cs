using System.Globalization;
using System.Net;
using System.Security.Cryptography;
using System.Text;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A wg-quick file with many peers, for the scale tests, the daemon's route tests and benchmarks/tunnel-peers: this end
/// 198.18.0.1/32 and fd00:5a1::1/128 (its own addresses alone, so every peer's prefix needs a route of its own, as
/// wg-quick adds none for a prefix the interface's own subnet already covers), peer i (from 0) at 198.18.0.0 + i + 2 /32 and fd00:5a1::(i + 2)/128 (two
/// prefixes each; the last two groups of the IPv6 address, so past 65,535 peers it stays a valid address), an endpoint
/// in 198.19.0.0/16, and random public keys (any 32 bytes are a key to wg and wireguard-go).
/// </summary>
internal static class ManyPeers
{
    public static string Text(WireGuardKey privateKey, int peers)
    {
        var text = new StringBuilder(peers * 200);
        text.Append(CultureInfo.InvariantCulture, $"[Interface]\nPrivateKey = {privateKey}\nListenPort = 51820\nAddress = 198.18.0.1/32, fd00:5a1::1/128\n");
        for (var i = 0; i < peers; i++)
        {
            var host = i + 2;
            var v4 = new IPAddress([198, (byte)(18 + (host >> 16)), (byte)(host >> 8), (byte)host]);
            var publicKey = WireGuardKey.FromBytes(RandomNumberGenerator.GetBytes(WireGuardKey.Size));
            text.Append(CultureInfo.InvariantCulture,
                $"\n[Peer]\nPublicKey = {publicKey}\nAllowedIPs = {v4}/32, fd00:5a1::{host >> 16:x}:{host & 0xffff:x}/128\nEndpoint = 198.19.{(host >> 8) & 0xff}.{host & 0xff}:51820\n");
        }

        return text.ToString();
    }
}
