using System.Net;
using System.Security.Cryptography;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A control-socket change adding many peers, for the control socket's memory tests: random public keys, peer i (from 2)
/// at 10.(i >> 16).(i >> 8).i/32 with an endpoint on loopback.
/// </summary>
internal static class ManyPeerChanges
{
    public static TunnelChange Adding(int peers)
    {
        var change = new TunnelChange();
        for (var i = 2; i < peers + 2; i++)
        {
            var peer = new PeerChange(WireGuardKey.FromBytes(RandomNumberGenerator.GetBytes(WireGuardKey.Size)))
            {
                Endpoint = new IPEndPoint(IPAddress.Loopback, 10_000 + (i % 50_000)),
                ReplaceAllowedIps = true,
            };
            peer.AddAllowedIp(new IPPrefix(new IPAddress([10, (byte)(i >> 16), (byte)(i >> 8), (byte)i]), 32));
            change.Peers.Add(peer);
        }

        return change;
    }
}
