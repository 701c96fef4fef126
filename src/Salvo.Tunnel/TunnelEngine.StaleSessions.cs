using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>Each peer's endpoint, exactly (port included), for a data message that names no session of ours; null where two peers share one.</summary>
    private Dictionary<DatagramAddress, Peer?> _peersByEndpoint = [];
    private long _peersByEndpointTime = long.MinValue;
    private long _peersByEndpointChanges;

    /// <summary>Endpoints set or moved, and peers removed, since the engine started (under the lock).</summary>
    private long _endpointChanges;

    /// <summary>
    /// A transport message from a peer's endpoint named no session of ours, and we have none with that peer: this end
    /// was restarted, and the peer still sends on the session it had with the end before. Start the handshake now
    /// rather than wait for the peer's: its next initiation may be up to REKEY_TIMEOUT (5 s) away, since its probe and
    /// retries went out while this end was down. Measured in the lab: the first ping from the surviving end after a
    /// relaunch took 3.2-5.4 s when the end had been down more than 2 s (the TCP fallback's 1 s silence and 1 s probe),
    /// 0.6-1.1 s after a prompt relaunch. The message itself cannot be authenticated, so a forged one can at most
    /// make this end start a handshake it would start anyway, once per REKEY_TIMEOUT per peer (<see cref="SendInitiation"/>).
    /// </summary>
    private void AnswerStaleSession(DatagramAddress source, ITunnelOutput output)
    {
        lock (_gate)
        {
            // The map may still hold a peer removed since it was built: a removed peer is never sent anything.
            if (PeerAtEndpoint(source) is { Current: null, Next: null } peer && _peers.Contains(peer))
            {
                SendInitiation(peer, isRetry: false, output);
            }
        }
    }

    /// <summary>
    /// The one peer whose endpoint is <paramref name="source"/>; the map is rebuilt at most once a second and only after
    /// an endpoint changed (<see cref="MoveEndpoint"/>), so a flood costs one lookup a message.
    /// </summary>
    private Peer? PeerAtEndpoint(DatagramAddress source)
    {
        var now = _time.GetTimestamp();
        if (IsStale(_peersByEndpointTime, ref _peersByEndpointChanges, now))
        {
            _peersByEndpointTime = now;
            var peers = new Dictionary<DatagramAddress, Peer?>();
            foreach (var peer in _peers)
            {
                if (peer.Endpoint.HasValue)
                {
                    var endpoint = peer.Endpoint.Unmap();
                    peers[endpoint] = peers.ContainsKey(endpoint) ? null : peer;
                }
            }

            _peersByEndpoint = peers;
        }

        return _peersByEndpoint.GetValueOrDefault(source.Unmap());
    }

    /// <summary>
    /// Sets a peer's endpoint, counting the change. The maps by endpoint are rebuilt only after one: rebuilt every
    /// second instead, a stranger's message a second (a transport message naming no session) cost a pass over every
    /// peer under the lock each second, a new map of a million peers each time.
    /// </summary>
    private void MoveEndpoint(Peer peer, DatagramAddress endpoint)
    {
        if (!peer.Endpoint.Equals(endpoint))
        {
            peer.Endpoint = endpoint;
            _endpointChanges++;
        }
    }

    /// <summary>Whether a map by endpoint built at <paramref name="builtAt"/> is to be built again now, taking the change count it will hold.</summary>
    private bool IsStale(long builtAt, ref long changesSeen, long now)
    {
        var changes = _endpointChanges;
        if (builtAt != long.MinValue && (changes == changesSeen || now - builtAt < _time.TimestampFrequency))
        {
            return false;
        }

        changesSeen = changes;
        EndpointMapsBuilt++;
        return true;
    }

    /// <summary>How many times a map by endpoint was built, for tests.</summary>
    internal int EndpointMapsBuilt { get; private set; }
}
