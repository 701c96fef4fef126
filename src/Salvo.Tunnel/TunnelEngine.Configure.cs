using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>
    /// Applies a whole change under the lock, as one step for the data path: a peer whose key stays keeps its
    /// sessions and counters; a removed peer's keys are zeroed, its indices freed and its waiting packets dropped;
    /// AllowedIPs switch at once for lookups in flight. The change was checked when it was parsed, so this cannot fail.
    /// The one way keys and peers change: a configuration file's change at construction, the control socket's after.
    /// </summary>
    /// <param name="change">What to change.</param>
    /// <param name="output">Where a keepalive that turning persistent keepalive on sends goes; null before the engine starts, which sends none.</param>
    internal void Configure(TunnelChange change, ITunnelOutput? output)
    {
        ArgumentNullException.ThrowIfNull(change);
        lock (_gate)
        {
            if (change.SetsPrivateKey)
            {
                ChangePrivateKey(change.PrivateKey);
            }

            if (change.ReplacePeers && _peers.Count > 0)
            {
                // Peers the change names again keep their sessions (wireguard-go drops them all and makes them anew).
                // One pass over the table: removing one at a time walked the list once per removed peer.
                var named = change.Peers.Where(peer => !peer.Remove).Select(peer => peer.PublicKey).ToHashSet();
                _peers.RemoveWhere(peer => !named.Contains(peer.PublicKeyText) && Unlink(peer));
            }

            if (change.ReplacePeers)
            {
                // The table ends with at most the change's peers: one growth to that size, where a million-peer wg
                // setconf doubled it twenty times. Other changes (wg set of one peer) grow it as before, by doubling.
                _peers.EnsureCapacity(change.Peers.Count);
            }

            foreach (var peerChange in change.Peers)
            {
                ConfigurePeer(peerChange, output);
            }
        }
    }

    /// <summary>
    /// This end's private key and the peers configured now, by reference (8 bytes a peer): the control socket's
    /// <c>get</c> then writes their state a page at a time with <see cref="WriteControlPeers"/>, so a million-peer answer
    /// never holds every peer's status at once, and the lock is never held for the whole answer.
    /// </summary>
    internal (WireGuardKey? PrivateKey, Peer[] Peers) GetControlSnapshot()
    {
        lock (_gate)
        {
            return (PrivateKey, _peers.ToArray());
        }
    }

    /// <summary>
    /// Writes the <c>get</c> lines of up to <paramref name="count"/> peers of a snapshot from <paramref name="start"/>,
    /// leaving out any removed since; under the lock, so each peer is written as one state.
    /// </summary>
    internal void WriteControlPeers(Peer[] snapshot, int start, int count, System.Buffers.IBufferWriter<byte> answer)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(answer);
        lock (_gate)
        {
            for (var i = start; i < Math.Min(snapshot.Length, start + count); i++)
            {
                var peer = snapshot[i];
                if (_peers.Contains(peer))
                {
                    Control.UapiGetWriter.WritePeer(answer, peer, ShownAddress(peer));
                }
            }
        }
    }

    /// <summary>Adds to <paramref name="into"/> the status of up to <paramref name="count"/> peers of a snapshot from <paramref name="start"/>, leaving out any removed since.</summary>
    internal void GetPeerStatuses(Peer[] snapshot, int start, int count, List<PeerStatus> into)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        ArgumentNullException.ThrowIfNull(into);
        lock (_gate)
        {
            for (var i = start; i < Math.Min(snapshot.Length, start + count); i++)
            {
                var peer = snapshot[i];
                if (_peers.Contains(peer))
                {
                    into.Add(StatusOf(peer));
                }
            }
        }
    }

    /// <summary>
    /// A new private key (or none) drops every session and handshake, whose keys came from the old one, and the peer
    /// whose public key is the new own key (wireguard-go's SetPrivateKey does both). Counters stay.
    /// </summary>
    private void ChangePrivateKey(WireGuardKey? privateKey)
    {
        if (Equals(privateKey, PrivateKey))
        {
            return;
        }

        UseIdentity(privateKey);
        if (PublicKey is not null && FindPeer(PublicKey.Bytes) is { } self)
        {
            RemovePeer(self);
        }

        foreach (var peer in _peers)
        {
            if (peer.IsActive)
            {
                ForgetKeys(peer);
                peer.ForgetStaticSecret();
                peer.Timers.HasSentInitiation = false;
            }
        }
    }

    private void ConfigurePeer(PeerChange change, ITunnelOutput? output)
    {
        if (PublicKey is not null && change.PublicKeyBytes.SequenceEqual(PublicKey.Bytes))
        {
            // A peer with this end's own key is ignored, as wireguard-go ignores it.
            return;
        }

        var peer = FindPeer(change.PublicKeyBytes);
        if (change.Remove)
        {
            if (peer is not null)
            {
                RemovePeer(peer);
            }

            return;
        }

        if (peer is null)
        {
            if (change.UpdateOnly)
            {
                return;
            }

            // A peer the control socket adds speaks plain WireGuard: the TCP fallback is a configuration-file feature.
            // It starts idle (no session) unless it must act by itself: TcpFallback = only dials from the tick.
            peer = new Peer(change.PublicKeyBytes, change.TcpFallback ?? TcpFallbackMode.Off, _sessions);
            _peers.TryAdd(peer);
            if (peer.PathMode == TcpFallbackMode.Only)
            {
                _ = peer.Session;
            }
        }

        if (change.SetsPresharedKey)
        {
            peer.SetPresharedKey(change.PresharedKey);
        }

        if (change.EndpointAddress is { HasValue: true } address)
        {
            // An idle peer's path is made from its endpoint when it becomes active; TcpFallback = only keeps the
            // UDP address in its path alone (it is always active).
            if (peer.IsActive)
            {
                peer.Path.UdpEndpoint = address;
            }

            if (peer.PathMode != TcpFallbackMode.Only)
            {
                MoveEndpoint(peer, address);
            }
        }

        var keepaliveTurnedOn = false;
        if (change.PersistentKeepalive is { } interval)
        {
            keepaliveTurnedOn = peer.PersistentKeepalive == TimeSpan.Zero && interval > TimeSpan.Zero;
            peer.PersistentKeepalive = interval;
            if (interval > TimeSpan.Zero || peer.IsActive)
            {
                // A keepalive acts by itself, so its peer is active from now on.
                peer.Timers.PersistentKeepalive = interval > TimeSpan.Zero ? Deadline(interval) : 0;
            }
        }

        if (change.ReplaceAllowedIps)
        {
            _routes.Replace(peer, change.PackedAllowedIps);
        }
        else
        {
            foreach (var prefix in Routing.PackedPrefixes.Enumerate(change.PackedAllowedIps))
            {
                _routes.Add(prefix.Address, prefix.Length, peer);
            }
        }

        if (keepaliveTurnedOn && output is not null && peer.Endpoint.HasValue && _local is not null)
        {
            // wireguard-go sends one at once when the interval goes from off to on, so a NAT opens without waiting.
            SendKeepalive(peer, output);
        }
    }

    /// <summary>Takes a peer out of the table and the routes, then wipes it: keys zeroed, indices freed, waiting packets dropped.</summary>
    private void RemovePeer(Peer peer)
    {
        _peers.Remove(peer);
        Unlink(peer);
    }

    /// <summary>Everything of <see cref="RemovePeer"/> but the table; true, for <see cref="PeerTable.RemoveWhere"/>.</summary>
    private bool Unlink(Peer peer)
    {
        _routes.RemovePeer(peer);
        _endpointChanges++;
        if (!peer.IsActive)
        {
            // Idle: no keys, indices, timers, packets or connections to undo.
            peer.Dispose();
            return true;
        }

        UnscheduleTicks(peer);
        ForgetKeys(peer);
        if (peer.Staged.Count > 0)
        {
            RefusePacket(TunnelDropReason.StagedDropped, peer.Staged.Count);
            peer.Staged.Clear();
        }

        if (peer.Path.TcpAddress.HasValue)
        {
            _connector?.Close(peer.Path.TcpAddress, TimeSpan.Zero);
        }

        if (peer.Path.DialedAddress.HasValue && peer.Path.DialedAddress != peer.Path.TcpAddress)
        {
            _connector?.Close(peer.Path.DialedAddress, TimeSpan.Zero);
        }

        peer.Dispose();
        return true;
    }
}
