using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>
    /// The peers the tick visits: those with a deadline armed or a path away from rest. An idle peer is not in it, so a
    /// tick costs nothing per idle peer (10,000 idle peers took 1.2 ms a tick, every 100 ms, when it visited all).
    /// </summary>
    private readonly List<Peer> _ticking = [];

    /// <summary>Fires every timer that is due: retransmissions, keepalives, new handshakes, key expiry.</summary>
    internal void Tick(ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(output);
        lock (_gate)
        {
            var now = _time.GetTimestamp();
            var kept = 0;

            // Peers woken during the tick are appended and visited in it too; the list is compacted in place.
            for (var i = 0; i < _ticking.Count; i++)
            {
                var peer = _ticking[i];
                TickPeer(peer, now, output);
                if (peer.CanLetGo)
                {
                    // Silent past the key lifetime (or never answered): back to its configuration alone.
                    peer.Timers.Armed = peer.Path.Woken = null;
                    peer.IsTicking = false;
                    peer.LetGo();
                }
                else if (peer.Timers.AnyArmed || !peer.Path.IsResting)
                {
                    _ticking[kept++] = peer;
                }
                else
                {
                    peer.IsTicking = false;
                }
            }

            _ticking.RemoveRange(kept, _ticking.Count - kept);
        }
    }

    /// <summary>Count of the peers the next tick visits, for tests.</summary>
    internal int TickingPeers
    {
        get
        {
            lock (_gate)
            {
                return _ticking.Count;
            }
        }
    }

    /// <summary>
    /// Lets <paramref name="peer"/>'s timers and path put it on the tick's list, and puts it there for a first visit:
    /// done when the peer takes a session, so an idle peer costs the tick nothing.
    /// </summary>
    private void ScheduleTicks(Peer peer)
    {
        peer.Timers.Armed = peer.Path.Woken = () => Wake(peer);
        Wake(peer);
    }

    /// <summary>Takes a removed peer off the tick's list for good: nothing it still had armed fires.</summary>
    private void UnscheduleTicks(Peer peer)
    {
        peer.Timers.Armed = peer.Path.Woken = null;
        peer.Timers.StopAll();
        if (peer.IsTicking)
        {
            peer.IsTicking = false;
            _ticking.Remove(peer);
        }
    }

    private void Wake(Peer peer)
    {
        if (!peer.IsTicking)
        {
            peer.IsTicking = true;
            _ticking.Add(peer);
        }
    }

    private void TickPeer(Peer peer, long now, ITunnelOutput output)
    {
        var timers = peer.Timers;
        if (PeerTimers.IsDue(timers.RetransmitHandshake, now))
        {
            RetransmitHandshake(peer, output);
        }

        if (PeerTimers.IsDue(timers.SendKeepalive, now))
        {
            timers.SendKeepalive = 0;
            SendKeepalive(peer, output);
            if (timers.NeedAnotherKeepalive)
            {
                timers.NeedAnotherKeepalive = false;
                timers.SendKeepalive = Deadline(WireGuardProtocol.KeepaliveTimeout);
            }
        }

        if (PeerTimers.IsDue(timers.NewHandshake, now))
        {
            // Data went out and nothing came back: the session may be dead on the other side.
            timers.NewHandshake = 0;
            SendInitiation(peer, isRetry: false, output);
        }

        if (PeerTimers.IsDue(timers.PersistentKeepalive, now))
        {
            timers.PersistentKeepalive = 0;
            SendKeepalive(peer, output);
        }

        if (PeerTimers.IsDue(timers.ZeroKeyMaterial, now))
        {
            timers.ZeroKeyMaterial = 0;
            ForgetKeys(peer);
        }

        TickPaths(peer, now, output);
    }

    private void RetransmitHandshake(Peer peer, ITunnelOutput output)
    {
        var timers = peer.Timers;
        timers.RetransmitHandshake = 0;
        if (timers.HandshakeAttempts >= WireGuardProtocol.MaxHandshakeAttempts)
        {
            // REKEY_ATTEMPT_TIME has passed without an answer: stop, and drop what waited for it.
            if (peer.Staged.Count > 0)
            {
                RefusePacket(TunnelDropReason.StagedDropped, peer.Staged.Count);
                peer.Staged.Clear();
            }
            timers.NewHandshake = 0;
            if (timers.ZeroKeyMaterial == 0)
            {
                timers.ZeroKeyMaterial = Deadline(3 * WireGuardProtocol.RejectAfterTime);
            }

            return;
        }

        timers.HandshakeAttempts++;
        SendInitiation(peer, isRetry: true, output);
    }

    private void OnHandshakeComplete(Peer peer)
    {
        peer.Timers.RetransmitHandshake = 0;
        peer.Timers.HandshakeAttempts = 0;
        peer.Timers.SentLastMinuteHandshake = false;
        peer.Initiations.Answered();
        peer.LastHandshake = _time.GetUtcNow();
    }

    private void OnSessionDerived(Peer peer) =>
        peer.Timers.ZeroKeyMaterial = Deadline(3 * WireGuardProtocol.RejectAfterTime);

    private void OnDataReceived(Peer peer)
    {
        if (peer.Timers.SendKeepalive == 0)
        {
            peer.Timers.SendKeepalive = Deadline(WireGuardProtocol.KeepaliveTimeout);
        }
        else
        {
            peer.Timers.NeedAnotherKeepalive = true;
        }
    }

    private void ForgetKeys(Peer peer)
    {
        Retire(peer.Previous);
        Retire(peer.Current);
        Retire(peer.Next);
        peer.Previous = peer.Current = peer.Next = null;
        if (peer.Handshake.LocalIndex != 0)
        {
            _indices.Remove(peer.Handshake.LocalIndex);
        }

        peer.Handshake.Clear();
    }
}
