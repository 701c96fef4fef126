using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>Held by whoever sends packets, so the send direction's tallies have one writer; never held by the receive direction.</summary>
    private readonly Lock _sendGate = new();

    /// <summary>Held by whoever receives datagrams, for the receive direction's tallies; never held by the send direction.</summary>
    private readonly Lock _receiveGate = new();

    /// <summary>Peers with a send tally in the current batch (grows once to the number of peers, then allocates nothing).</summary>
    private readonly List<Peer> _sendTouched = [];

    /// <summary>Peers with a receive tally in the current batch.</summary>
    private readonly List<Peer> _receiveTouched = [];

    /// <summary>Returns <paramref name="tally"/>, listing its <paramref name="peer"/> in <paramref name="touched"/> the first time in a batch.</summary>
    private static PeerTally Listed(PeerTally tally, Peer peer, List<Peer> touched)
    {
        if (!tally.IsListed)
        {
            tally.IsListed = true;
            touched.Add(peer);
        }

        return tally;
    }

    /// <summary>Applies what the send direction did in this batch to each peer, under the lock once.</summary>
    private void ApplySendTallies(ITunnelOutput output)
    {
        if (_sendTouched.Count == 0)
        {
            return;
        }

        lock (_gate)
        {
            foreach (var peer in _sendTouched)
            {
                if (!_peers.Contains(peer))
                {
                    // Removed while this batch was sealed: nothing of it may start a handshake or a timer. Its session
                    // was disposed, not pooled, so the tally left in it is never seen again.
                    continue;
                }

                var tally = peer.SendTally;

                RecordSent(peer, tally.Keypair!, tally.HighestCounter, tally.DatagramBytes, tally.Packets, tally.PacketBytes, output);
                tally.Clear();
            }
        }

        _sendTouched.Clear();
    }

    /// <summary>
    /// Applies what the receive direction did in this batch to each peer, under the lock once: bytes and counts, the
    /// timers an authenticated message resets, the keepalive owed for data, and the initiator's last-minute handshake.
    /// </summary>
    private void ApplyReceiveTallies(ITunnelOutput output)
    {
        if (_receiveTouched.Count == 0)
        {
            return;
        }

        lock (_gate)
        {
            foreach (var peer in _receiveTouched)
            {
                if (!_peers.Contains(peer))
                {
                    continue;
                }

                var tally = peer.ReceiveTally;
                var keypair = tally.Keypair!;

                // Once per batch, the path the peer was heard on: keeps the TCP fallback's view of UDP fresh (a
                // datagram from the known endpoint takes no lock on the way in; see ReceiveTransport).
                if (tally.Source.HasValue)
                {
                    Roam(peer, tally.Source);
                }

                peer.ReceivedBytes += tally.DatagramBytes;
                OnAuthenticatedPacketTraversal(peer);
                peer.Timers.NewHandshake = 0;

                // The initiator's key is near the end of its life and the responder cannot start a handshake for it:
                // ask once now, so a new session is ready before this one is refused.
                if (keypair.IsInitiator && ReferenceEquals(keypair, peer.Current) && !peer.Timers.SentLastMinuteHandshake
                    && Age(keypair) >= WireGuardProtocol.RejectAfterTime - WireGuardProtocol.KeepaliveTimeout - WireGuardProtocol.RekeyTimeout)
                {
                    peer.Timers.SentLastMinuteHandshake = true;
                    SendInitiation(peer, isRetry: false, output);
                }

                if (tally.CarriedData)
                {
                    OnDataReceived(peer);
                }

                Counters.PacketsReceived += tally.Packets;
                Counters.BytesReceived += tally.PacketBytes;
                tally.Clear();
            }
        }

        _receiveTouched.Clear();
    }

    private void RefuseLocked(TunnelDropReason reason, DatagramAddress source)
    {
        lock (_gate)
        {
            Refuse(reason, source);
        }
    }
}
