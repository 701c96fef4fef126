using System.Buffers.Binary;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>
    /// Encrypts a batch of IP packets from the device: each goes to the peer whose AllowedIPs hold its destination,
    /// or waits (up to <see cref="Peer.StagedPacketLimit"/> per peer) while a handshake makes a key. Packets with a
    /// key are sealed without the engine's lock; the lock is taken once at the end to apply the batch to the peers.
    /// </summary>
    internal void SendPackets(PacketBatch packets, ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(packets);
        ArgumentNullException.ThrowIfNull(output);
        lock (_sendGate)
        {
            if (packets.Count > 0)
            {
                Counters.CountSendBatch(packets.Count);
            }

            for (var i = 0; i < packets.Count; i++)
            {
                var packet = packets[i];
                if (packet.Length > MessageLayout.LargestCarriedPacket)
                {
                    lock (_gate)
                    {
                        RefusePacket(TunnelDropReason.PacketTooLarge);
                    }

                    continue;
                }

                var peer = _routes.LookupDestination(packet);
                if (peer is not null && TrySealTransport(peer, packet, output, out var keypair, out var counter, out var size))
                {
                    if (peer.SessionIfActive is not { } session || !session.Holds(keypair))
                    {
                        // Removed since the seal: the datagram went out under a key the peer held, and nothing of it
                        // is applied (a session taken now, outside the lock, would be one the pool never sees).
                        continue;
                    }

                    var tally = Listed(session.SendTally, peer, _sendTouched);
                    tally.AddDatagram(keypair, counter, size, !packet.IsEmpty);
                    if (!packet.IsEmpty)
                    {
                        tally.AddPacket(packet.Length);
                    }
                    continue;
                }

                lock (_gate)
                {
                    if (peer is null || !peer.Endpoint.HasValue || !_peers.Contains(peer))
                    {
                        // A peer removed since the lookup counts as no route: its packets must not stage or start a handshake.
                        RefusePacket(TunnelDropReason.NoRoute);
                    }
                    else if (_local is null)
                    {
                        RefusePacket(TunnelDropReason.NoPrivateKey);
                    }
                    else if (!TrySendTransport(peer, packet, output))
                    {
                        Stage(peer, packet);
                        SendInitiation(peer, isRetry: false, output);
                    }
                }
            }

            ApplySendTallies(output);
        }
    }

    /// <summary>
    /// The size of a transport message carrying <paramref name="packetLength"/> bytes: header, padded plaintext, tag.
    /// Padding follows WireGuard's rule (the kernel's calculate_skb_padding, wireguard-go's calculatePaddingSize): the
    /// last MTU-sized unit of the packet (all of it, unless it is longer than the MTU) is padded to a multiple of 16,
    /// never past the MTU, so a packet longer than the MTU is carried with at most 15 bytes of padding. Never longer
    /// than <see cref="MessageLayout.LargestTransportSize"/>; the caller refuses longer packets first.
    /// </summary>
    internal int TransportSize(int packetLength) => MessageLayout.TransportHeaderSize + PaddedLength(packetLength, _mtu) + MessageLayout.TagSize;

    /// <summary>The plaintext length of <paramref name="packetLength"/> bytes padded for an interface MTU of <paramref name="mtu"/> (0: none known).</summary>
    internal static int PaddedLength(int packetLength, int mtu)
    {
        var lastUnit = mtu > 0 && packetLength > mtu ? packetLength % mtu : packetLength;
        var paddedUnit = (lastUnit + MessageLayout.PaddingMultiple - 1) / MessageLayout.PaddingMultiple * MessageLayout.PaddingMultiple;
        if (mtu > 0 && paddedUnit > mtu)
        {
            paddedUnit = mtu;
        }

        // A packet near the 65,475-byte limit may not be padded past it: the datagram would not fit in UDP.
        return Math.Max(packetLength, Math.Min(packetLength - lastUnit + paddedUnit, MessageLayout.LargestCarriedPacket));
    }

    /// <summary>Seals and sends one packet under the engine's lock, applying it to the peer at once (keepalives, packets that waited).</summary>
    private bool TrySendTransport(Peer peer, ReadOnlySpan<byte> packet, ITunnelOutput output)
    {
        if (!TrySealTransport(peer, packet, output, out var keypair, out var counter, out var size))
        {
            return false;
        }

        RecordSent(peer, keypair, counter, size, packet.IsEmpty ? 0 : 1, packet.Length, output);
        return true;
    }

    /// <summary>
    /// Takes a counter of the peer's current key and seals <paramref name="packet"/> into a datagram of the output;
    /// false when there is no usable key (none yet, too old, used up) or no endpoint. Needs no lock: the counter is
    /// taken atomically and a key retired meanwhile refuses the seal (its handle is disposed), which counts as no key.
    /// </summary>
    private bool TrySealTransport(Peer peer, ReadOnlySpan<byte> packet, ITunnelOutput output, out Keypair keypair, out ulong counter, out int size)
    {
        keypair = peer.Current!;
        counter = 0;
        size = 0;
        var endpoint = peer.Endpoint;
        if (keypair is null || !endpoint.HasValue || Age(keypair) >= WireGuardProtocol.RejectAfterTime || !keypair.TryTakeSendCounter(out counter))
        {
            return false;
        }

        size = TransportSize(packet.Length);
        var message = output.AddDatagram(size, endpoint);
        MessageLayout.WriteType(message, MessageType.Transport);
        MessageLayout.WriteIndex(message, MessageLayout.TransportReceiver, keypair.RemoteIndex);
        BinaryPrimitives.WriteUInt64LittleEndian(message[MessageLayout.TransportCounter..], counter);
        var body = message[MessageLayout.TransportHeaderSize..];
        var padded = body[..^MessageLayout.TagSize];
        Span<byte> nonce = stackalloc byte[12];
        MessageLayout.WriteNonce(nonce, counter);
        try
        {
            if (padded.Length == packet.Length)
            {
                // No padding (an MTU-sized packet, or one already a multiple of 16): the cipher reads the packet where
                // the device left it and writes the ciphertext into the datagram, so the plaintext is never copied.
                keypair.Send.Seal(nonce, [], packet, body);
            }
            else
            {
                packet.CopyTo(padded);
                padded[packet.Length..].Clear();
                keypair.Send.Seal(nonce, [], padded, body);
            }
        }
        catch (ObjectDisposedException)
        {
            // Retired by a handshake on the other thread between the read of Current and the seal. The send batch cannot
            // take a reservation back, so it leaves zeroed (type 0, which the peer drops as malformed); the caller
            // retries the packet under the lock with the new key.
            message.Clear();
            return false;
        }

        return true;
    }

    /// <summary>Applies sent datagrams to the peer: bytes, counts, timers, and a new handshake when the key is due for one.</summary>
    private void RecordSent(Peer peer, Keypair keypair, ulong highestCounter, long datagramBytes, long packets, long packetBytes, ITunnelOutput output)
    {
        peer.SentBytes += datagramBytes;
        Counters.PacketsSent += packets;
        Counters.BytesSent += packetBytes;
        if (packets > 0)
        {
            OnAnswerExpected(peer);
        }

        OnAuthenticatedPacketTraversal(peer);
        peer.Timers.SendKeepalive = 0;
        if (packets > 0 && peer.Timers.NewHandshake == 0)
        {
            peer.Timers.NewHandshake = Deadline(WireGuardProtocol.KeepaliveTimeout + WireGuardProtocol.RekeyTimeout + Jitter());
        }

        // Keep the key fresh: past 2^60 messages, or for the initiator past two minutes, start the next handshake now
        // so a new key is ready before this one is refused.
        if (highestCounter >= WireGuardProtocol.RekeyAfterMessages || (keypair.IsInitiator && Age(keypair) >= WireGuardProtocol.RekeyAfterTime))
        {
            SendInitiation(peer, isRetry: false, output);
        }
    }

    private void SendKeepalive(Peer peer, ITunnelOutput output)
    {
        if (!TrySendTransport(peer, [], output))
        {
            SendInitiation(peer, isRetry: false, output);
        }
    }

    private void Stage(Peer peer, ReadOnlySpan<byte> packet)
    {
        if (peer.Staged.Count == Peer.StagedPacketLimit)
        {
            peer.Staged.Dequeue();
            RefusePacket(TunnelDropReason.StagedDropped);
        }

        peer.Staged.Enqueue(packet.ToArray());
    }

    /// <summary>Sends what waited for a key; false when nothing waited (the caller may then send a keepalive).</summary>
    private bool SendStaged(Peer peer, ITunnelOutput output)
    {
        var any = false;
        while (peer.Staged.TryPeek(out var packet) && TrySendTransport(peer, packet, output))
        {
            peer.Staged.Dequeue();
            any = true;
        }

        return any;
    }

    private void SendInitiation(Peer peer, bool isRetry, ITunnelOutput output, bool afterCookie = false)
    {
        var timers = peer.Timers;
        if (!isRetry)
        {
            timers.HandshakeAttempts = 0;
        }

        if (_local is null
            || !peer.Endpoint.HasValue
            || (!afterCookie && timers.HasSentInitiation && _time.GetElapsedTime(timers.LastInitiationSent) < WireGuardProtocol.RekeyTimeout))
        {
            return;
        }

        if (peer.Handshake.Stage != HandshakeStage.None && peer.Handshake.LocalIndex != 0)
        {
            _indices.Remove(peer.Handshake.LocalIndex);
        }

        var index = AllocateIndex(peer);
        Span<byte> message = stackalloc byte[MessageLayout.InitiationSize];
        if (!NoiseHandshake.TryCreateInitiation(Local, peer, index, _time.GetUtcNow(), message))
        {
            _indices.Remove(index);
            return;
        }

        peer.Handshake.ResponseExemptedFromCookie = false;
        peer.Cookies.AddMacs(message, MessageLayout.InitiationMac1, _time);
        message.CopyTo(output.AddControlDatagram(message.Length, peer.Endpoint, expendable: false));
        peer.SentBytes += message.Length;
        peer.Initiations.CountSent(_time.GetUtcNow());
        WarnIfUnanswered(peer);
        timers.LastInitiationSent = _time.GetTimestamp();
        timers.HasSentInitiation = true;
        OnAnswerExpected(peer);
        OnAuthenticatedPacketTraversal(peer);
        timers.SendKeepalive = 0;
        timers.RetransmitHandshake = Deadline(WireGuardProtocol.RekeyTimeout + Jitter());
    }

    private void OnAuthenticatedPacketTraversal(Peer peer)
    {
        if (peer.PersistentKeepalive > TimeSpan.Zero)
        {
            peer.Timers.PersistentKeepalive = Deadline(peer.PersistentKeepalive);
        }
    }
}
