using System.Buffers.Binary;
using Salvo.Tunnel.Protocol;
using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>
    /// Handles one datagram from the UDP socket: answers handshakes, decrypts transport data in place and writes
    /// the packets that authenticate and come from an allowed source. Bad input is counted and dropped, never thrown.
    /// </summary>
    internal void ReceiveDatagram(Span<byte> datagram, DatagramAddress source, ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var type = MessageLayout.Classify(datagram);
        if (type != MessageType.Transport)
        {
            // Not under the receive direction's gate: transport messages that another thread receives meanwhile (the
            // TCP fallback's connections, a second socket) do not wait for this handshake's Diffie-Hellman.
            ReceiveHandshake(type, datagram, source, output);
            return;
        }

        lock (_receiveGate)
        {
            ReceiveTransport(datagram, source, output);
            ApplyReceiveTallies(output);
        }
    }

    /// <summary>
    /// Handles every datagram of a received batch, in order. Transport data is decrypted without the engine's lock
    /// (so it runs beside <see cref="SendPackets"/>); the lock is taken once at the end to apply the batch to the peers.
    /// </summary>
    internal void ReceiveDatagrams(ReceiveBatch batch, ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ArgumentNullException.ThrowIfNull(output);
        lock (_receiveGate)
        {
            if (batch.Count > 0)
            {
                Counters.CountReceiveBatch(batch.Count);
            }

            for (var i = 0; i < batch.Count; i++)
            {
                var datagram = batch[i];
                // The batch's blocks belong to the caller's loop and are reused next round: decrypting in place is safe.
                // A dual-stack socket reports IPv4 peers IPv4-mapped; keep them in the form the configuration uses.
                ReceiveOne(System.Runtime.InteropServices.MemoryMarshal.AsMemory(datagram.Memory).Span, datagram.Source.Unmap(), output);
            }

            ApplyReceiveTallies(output);
        }
    }

    private void ReceiveOne(Span<byte> datagram, DatagramAddress source, ITunnelOutput output)
    {
        var type = MessageLayout.Classify(datagram);
        if (type == MessageType.Transport)
        {
            ReceiveTransport(datagram, source, output);
            return;
        }

        if (!TryQueueHandshake(type, datagram, source))
        {
            ReceiveHandshake(type, datagram, source, output);
        }
    }

    /// <summary>A handshake message (or one of no known type): under the engine's lock, but for an initiation's Diffie-Hellman.</summary>
    private void ReceiveHandshake(MessageType type, ReadOnlySpan<byte> datagram, DatagramAddress source, ITunnelOutput output)
    {
        if (type == MessageType.Initiation)
        {
            ReceiveInitiation(datagram, source, output);
            return;
        }

        lock (_gate)
        {
            if (_local is null)
            {
                // No private key yet (a device started empty, waiting for wg setconf): no handshake can be answered.
                Refuse(type is MessageType.Response or MessageType.CookieReply ? TunnelDropReason.NoPrivateKey : TunnelDropReason.Malformed, source);
                return;
            }

            switch (type)
            {
                case MessageType.Response:
                    ReceiveResponse(datagram, source, output);
                    break;
                case MessageType.CookieReply:
                    ReceiveCookieReply(datagram, source, output);
                    break;
                default:
                    Refuse(TunnelDropReason.Malformed, source);
                    break;
            }
        }
    }

    /// <summary>
    /// Answers an initiation. The MACs, the cookie decision and every change to the peer happen under the lock; the
    /// X25519 operations of a handshake (two to open the initiation, three to seal the response) run outside it, so the
    /// data path's once-a-batch turn at the lock does not wait behind them. Under a storm of new handshakes the lock
    /// was held through all of them, and the established peer's traffic fell (docs/benchmarks.md, "Handshakes at
    /// scale"). The static-static one is computed once per peer and kept in its session (<see cref="StaticSecret"/>),
    /// published only once an initiation it opened is answered, so an idle peer, or one named by forged initiations,
    /// holds none. What changed meanwhile (the peer removed, its key or preshared key replaced, another initiation from
    /// it accepted) is checked again before the answer is made the peer's.
    /// </summary>
    private void ReceiveInitiation(ReadOnlySpan<byte> message, DatagramAddress source, ITunnelOutput output)
    {
        LocalIdentity local;
        lock (_gate)
        {
            if (_local is null)
            {
                Refuse(TunnelDropReason.NoPrivateKey, source);
                return;
            }

            var sender = MessageLayout.ReadIndex(message, MessageLayout.InitiationSender);
            if (!PassesMacs(message, MessageLayout.InitiationMac1, sender, source, output))
            {
                return;
            }

            local = _local;
        }

        using var opened = new OpenedInitiation();
        Span<byte> staticSecret = stackalloc byte[MessageLayout.KeySize];
        StaticSecret? computed = null;
        try
        {
            if (!NoiseHandshake.TryOpenStatic(local, message, opened)
                || !TryReadStaticSecret(local, opened.RemoteStatic, staticSecret, ref computed)
                || !NoiseHandshake.TryOpenTimestamp(local, message, staticSecret, opened))
            {
                RefuseLocked(TunnelDropReason.HandshakeNotAuthenticated, source);
                return;
            }

            Peer? peer;
            lock (_gate)
            {
                peer = AcceptablePeer(local, opened, source);
                if (peer is null)
                {
                    return;
                }

                peer.PresharedKey.CopyTo(opened.PresharedKey, 0);
            }

            Span<byte> response = stackalloc byte[MessageLayout.ResponseSize];
            if (!NoiseHandshake.TrySealResponse(local, opened, opened.PresharedKey, response))
            {
                RefuseLocked(TunnelDropReason.HandshakeNotAuthenticated, source);
                return;
            }

            lock (_gate)
            {
                if (!ReferenceEquals(AcceptablePeer(local, opened, source), peer)
                    || !System.Security.Cryptography.CryptographicOperations.FixedTimeEquals(peer.PresharedKey, opened.PresharedKey))
                {
                    return;
                }

                AnswerInitiation(peer, opened, response, source, output);
                if (computed is not null)
                {
                    peer.Session.PublishStaticSecret(computed);
                    computed = null;
                }
            }
        }
        finally
        {
            System.Security.Cryptography.CryptographicOperations.ZeroMemory(staticSecret);
            computed?.Wipe();
        }
    }

    /// <summary>
    /// The static-static secret with the initiator of an initiation: copied under the lock from its peer's session
    /// when one holds it for <paramref name="local"/>, computed outside the lock otherwise (<paramref name="computed"/>,
    /// for the caller to publish once the initiation is answered). False for a low-order key.
    /// </summary>
    private bool TryReadStaticSecret(LocalIdentity local, ReadOnlySpan<byte> remoteStatic, Span<byte> destination, ref StaticSecret? computed)
    {
        lock (_gate)
        {
            if (FindPeer(remoteStatic)?.SessionIfActive?.StaticSecretFor(local) is { } cached)
            {
                return cached.TryCopyTo(destination);
            }
        }

        computed = StaticSecret.Compute(local, remoteStatic);
        return computed.TryCopyTo(destination);
    }

    /// <summary>The configured peer that sent <paramref name="opened"/>, if it may accept it now; refuses and returns null otherwise. Under the lock.</summary>
    private Peer? AcceptablePeer(LocalIdentity local, OpenedInitiation opened, DatagramAddress source)
    {
        if (!ReferenceEquals(_local, local))
        {
            // This end's private key changed while the initiation was being opened: it was sealed for the old one.
            Refuse(TunnelDropReason.HandshakeNotAuthenticated, source);
            return null;
        }

        var peer = FindPeer(opened.RemoteStatic);
        if (peer is null)
        {
            Refuse(TunnelDropReason.UnknownPeer, source);
            return null;
        }

        if (!NoiseHandshake.MayAccept(peer, opened, _time, out var refusal))
        {
            Refuse(refusal, source);
            return null;
        }

        return peer;
    }

    /// <summary>Makes the sealed answer the peer's handshake, derives the session and sends the response. Under the lock.</summary>
    private void AnswerInitiation(Peer peer, OpenedInitiation opened, Span<byte> response, DatagramAddress source, ITunnelOutput output)
    {
        Roam(peer, source);
        if (peer.Handshake.LocalIndex != 0)
        {
            _indices.Remove(peer.Handshake.LocalIndex);
        }

        var index = AllocateIndex(peer);
        NoiseHandshake.AcceptAnswered(peer.Handshake, opened, index, _time, response);
        peer.Cookies.AddMacs(response, MessageLayout.ResponseMac1, _time);
        var keypair = NoiseHandshake.DeriveKeypair(Local, peer.Handshake, isInitiator: false, _time.GetTimestamp());
        _indices[index] = new IndexEntry(peer, keypair);
        Retire(peer.Next);
        Retire(peer.Previous);
        peer.Previous = null;
        peer.Next = keypair;

        response.CopyTo(output.AddControlDatagram(response.Length, source, expendable: false));
        peer.SentBytes += response.Length;
        OnAuthenticatedPacketTraversal(peer);
        peer.Timers.SendKeepalive = 0;
        OnSessionDerived(peer);
        Counters.HandshakesAnswered++;
        LogHandshake(peer, "responder");
    }

    private void ReceiveResponse(ReadOnlySpan<byte> message, DatagramAddress source, ITunnelOutput output)
    {
        var sender = MessageLayout.ReadIndex(message, MessageLayout.ResponseSender);
        var receiver = MessageLayout.ReadIndex(message, MessageLayout.ResponseReceiver);
        var named = _indices.TryGetValue(receiver, out var entry) && entry.Keypair is null;
        if (!PassesMacs(message, MessageLayout.ResponseMac1, sender, source, output, named && entry.Peer.Handshake.LocalIndex == receiver ? entry.Peer.Handshake : null))
        {
            return;
        }

        if (!named)
        {
            Refuse(TunnelDropReason.UnknownIndex, source);
            return;
        }

        var peer = entry.Peer;
        if (!NoiseHandshake.TryConsumeResponse(Local, peer, message))
        {
            Refuse(TunnelDropReason.ResponseNotAuthenticated, source);
            return;
        }

        var keypair = NoiseHandshake.DeriveKeypair(Local, peer.Handshake, isInitiator: true, _time.GetTimestamp());
        _indices[receiver] = new IndexEntry(peer, keypair);
        Retire(peer.Previous);
        if (peer.Next is not null)
        {
            // Keys we answered with but never saw used stay receivable a while, like an older session.
            Retire(peer.Current);
            peer.Previous = peer.Next;
            peer.Next = null;
        }
        else
        {
            peer.Previous = peer.Current;
        }

        peer.Current = keypair;
        Roam(peer, source);
        peer.ReceivedBytes += message.Length;
        OnHandshakeComplete(peer);
        OnSessionDerived(peer);
        OnAuthenticatedPacketTraversal(peer);
        peer.Timers.NewHandshake = 0;
        Counters.HandshakesInitiated++;
        LogHandshake(peer, "initiator");

        // The initiator confirms the session at once, with what waited or with an empty packet.
        if (!SendStaged(peer, output))
        {
            SendKeepalive(peer, output);
        }
    }

    /// <summary>
    /// Takes the cookie. When it answers our pending initiation, the initiation goes again at once with MAC2, at most
    /// once per REKEY_TIMEOUT: the reply says the initiation arrived and was refused only for want of a cookie, so
    /// waiting out the 5 s retransmission timer (the paper, section 6.4) would gain nothing, and a flood that puts the
    /// peer under load would otherwise add 5 s to every handshake with it. The peer's per-source limit (a burst of 5)
    /// absorbs the one extra initiation.
    /// </summary>
    private void ReceiveCookieReply(ReadOnlySpan<byte> message, DatagramAddress source, ITunnelOutput output)
    {
        var receiver = MessageLayout.ReadIndex(message, MessageLayout.CookieReplyReceiver);
        if (!_indices.TryGetValue(receiver, out var entry))
        {
            Refuse(TunnelDropReason.UnknownIndex, source);
            return;
        }

        var peer = entry.Peer;
        if (!peer.Cookies.TryConsumeReply(message, _time))
        {
            Refuse(TunnelDropReason.ResponseNotAuthenticated, source);
            return;
        }

        Counters.CookieRepliesReceived++;
        var handshake = peer.Handshake;
        if (entry.Keypair is null && handshake.Stage == HandshakeStage.InitiationCreated && handshake.LocalIndex == receiver
            && (handshake.LastRetryAfterCookie == 0 || _time.GetElapsedTime(handshake.LastRetryAfterCookie) >= WireGuardProtocol.RekeyTimeout))
        {
            handshake.LastRetryAfterCookie = _time.GetTimestamp();
            SendInitiation(peer, isRetry: true, output, afterCookie: true);
        }
    }

    /// <summary>
    /// Checks, decrypts and delivers one transport message without the engine's lock: the index map is concurrent, the
    /// replay window is locked per keypair, and what the message means for the peer is tallied for the batch. The lock
    /// is taken only for a refusal, a new session's first message, or a moved endpoint.
    /// </summary>
    private void ReceiveTransport(Span<byte> message, DatagramAddress source, ITunnelOutput output)
    {
        var receiver = MessageLayout.ReadIndex(message, MessageLayout.TransportReceiver);
        if (!_indices.TryGetValue(receiver, out var entry) || entry.Keypair is null)
        {
            RefuseLocked(TunnelDropReason.UnknownIndex, source);
            AnswerStaleSession(source, output);
            return;
        }

        var (peer, keypair) = (entry.Peer, entry.Keypair);
        if (Age(keypair) >= WireGuardProtocol.RejectAfterTime)
        {
            RefuseLocked(TunnelDropReason.Expired, source);
            return;
        }

        // The replay window needs no lock of its own: every transport message comes through ReceiveDatagram(s) under
        // _receiveGate (UDP batches and TCP frames alike), so the window has one writer at a time.
        var counter = BinaryPrimitives.ReadUInt64LittleEndian(message[MessageLayout.TransportCounter..]);
        if (!keypair.Replay.MayAccept(counter))
        {
            RefuseLocked(TunnelDropReason.Replayed, source);
            return;
        }

        Span<byte> nonce = stackalloc byte[12];
        MessageLayout.WriteNonce(nonce, counter);
        var body = message[MessageLayout.TransportHeaderSize..];
        var plaintext = body[..^MessageLayout.TagSize];
        bool opened;
        try
        {
            opened = keypair.Receive.TryOpen(nonce, [], body, plaintext);
        }
        catch (ObjectDisposedException)
        {
            // The keypair was retired (its index is gone) between the lookup and the decryption.
            RefuseLocked(TunnelDropReason.UnknownIndex, source);
            return;
        }

        if (!opened)
        {
            RefuseLocked(TunnelDropReason.DecryptionFailed, source);
            return;
        }

        if (!keypair.Replay.TryMark(counter))
        {
            RefuseLocked(TunnelDropReason.Replayed, source);
            return;
        }

        if (ReferenceEquals(keypair, peer.Next) || !peer.Endpoint.Equals(source))
        {
            lock (_gate)
            {
                if (ReferenceEquals(keypair, peer.Next))
                {
                    Retire(peer.Previous);
                    peer.Previous = peer.Current;
                    peer.Current = keypair;
                    peer.Next = null;
                    OnHandshakeComplete(peer);
                    SendStaged(peer, output);
                }

                Roam(peer, source);
            }
        }

        // Read once, never made here: the peer may have been removed (or, silent past the key lifetime, let go) since
        // its index was found, and a session taken now, outside the lock, would be one the pool and the tick never see.
        if (peer.SessionIfActive is not { } session || !session.Holds(keypair))
        {
            RefuseLocked(TunnelDropReason.UnknownIndex, source);
            return;
        }

        var tally = Listed(session.ReceiveTally, peer, _receiveTouched);
        tally.AddDatagram(keypair, counter, message.Length, !plaintext.IsEmpty, source);
        if (plaintext.IsEmpty)
        {
            return;
        }

        var length = IPPacket.DeclaredLength(plaintext);
        if (length == 0 || length > plaintext.Length)
        {
            RefuseLocked(TunnelDropReason.BadInnerPacket, source);
            return;
        }

        var packet = plaintext[..length];
        if (!ReferenceEquals(_routes.LookupSource(packet), peer))
        {
            RefuseLocked(TunnelDropReason.SourceNotAllowed, source);
            return;
        }

        tally.AddPacket(packet.Length);
        output.WritePacket(packet);
    }

    private void Retire(Keypair? keypair)
    {
        if (keypair is null)
        {
            return;
        }

        _indices.Remove(keypair.LocalIndex);
        keypair.Dispose();
    }
}
