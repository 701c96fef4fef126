using System.Buffers.Binary;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel;

public sealed partial class TunnelEngine
{
    /// <summary>
    /// Encrypts a batch of IP packets from the device: each goes to the peer whose AllowedIPs hold its destination,
    /// or waits (up to <see cref="Peer.StagedPacketLimit"/> per peer) while a handshake makes a key.
    /// </summary>
    public void SendPackets(PacketBatch packets, ITunnelOutput output)
    {
        ArgumentNullException.ThrowIfNull(packets);
        ArgumentNullException.ThrowIfNull(output);
        lock (_gate)
        {
            for (var i = 0; i < packets.Count; i++)
            {
                var packet = packets[i];
                var peer = _routes.LookupDestination(packet);
                if (peer is null || !peer.Endpoint.HasValue)
                {
                    RefusePacket(TunnelDropReason.NoRoute);
                    continue;
                }

                if (!TrySendTransport(peer, packet, output))
                {
                    Stage(peer, packet);
                    SendInitiation(peer, isRetry: false, output);
                }
            }
        }
    }

    /// <summary>The size of a transport message carrying <paramref name="packetLength"/> bytes: header, padded plaintext, tag.</summary>
    internal int TransportSize(int packetLength)
    {
        var padded = (packetLength + MessageLayout.PaddingMultiple - 1) / MessageLayout.PaddingMultiple * MessageLayout.PaddingMultiple;
        if (_mtu > 0 && padded > _mtu)
        {
            // Padding never pushes a packet past the tunnel MTU (it would then not fit the path it was sized for).
            padded = Math.Max(packetLength, _mtu);
        }

        return MessageLayout.TransportHeaderSize + padded + MessageLayout.TagSize;
    }

    private bool TrySendTransport(Peer peer, ReadOnlySpan<byte> packet, ITunnelOutput output)
    {
        var keypair = peer.Current;
        if (keypair is null || Age(keypair) >= WireGuardProtocol.RejectAfterTime || !keypair.TryTakeSendCounter(out var counter))
        {
            return false;
        }

        var size = TransportSize(packet.Length);
        var message = output.AddDatagram(size, peer.Endpoint);
        MessageLayout.WriteType(message, MessageType.Transport);
        MessageLayout.WriteIndex(message, MessageLayout.TransportReceiver, keypair.RemoteIndex);
        BinaryPrimitives.WriteUInt64LittleEndian(message[MessageLayout.TransportCounter..], counter);
        var body = message[MessageLayout.TransportHeaderSize..];
        packet.CopyTo(body);
        body[packet.Length..^MessageLayout.TagSize].Clear();
        Span<byte> nonce = stackalloc byte[12];
        MessageLayout.WriteNonce(nonce, counter);
        keypair.Send.Seal(nonce, [], body[..^MessageLayout.TagSize], body);
        peer.SentBytes += size;
        if (!packet.IsEmpty)
        {
            Counters.PacketsSent++;
            Counters.BytesSent += packet.Length;
            OnAnswerExpected(peer);
        }

        OnAuthenticatedPacketTraversal(peer);
        peer.Timers.SendKeepalive = 0;
        if (!packet.IsEmpty && peer.Timers.NewHandshake == 0)
        {
            peer.Timers.NewHandshake = Deadline(WireGuardProtocol.KeepaliveTimeout + WireGuardProtocol.RekeyTimeout + Jitter());
        }

        // Keep the key fresh: past 2^60 messages, or for the initiator past two minutes, start the next handshake now
        // so a new key is ready before this one is refused.
        if (counter >= WireGuardProtocol.RekeyAfterMessages || (keypair.IsInitiator && Age(keypair) >= WireGuardProtocol.RekeyAfterTime))
        {
            SendInitiation(peer, isRetry: false, output);
        }

        return true;
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

    private void SendInitiation(Peer peer, bool isRetry, ITunnelOutput output)
    {
        var timers = peer.Timers;
        if (!isRetry)
        {
            timers.HandshakeAttempts = 0;
        }

        if (!peer.Endpoint.HasValue
            || (timers.HasSentInitiation && _time.GetElapsedTime(timers.LastInitiationSent) < WireGuardProtocol.RekeyTimeout))
        {
            return;
        }

        if (peer.Handshake.Stage != HandshakeStage.None && peer.Handshake.LocalIndex != 0)
        {
            _indices.Remove(peer.Handshake.LocalIndex);
        }

        var index = AllocateIndex(peer);
        Span<byte> message = stackalloc byte[MessageLayout.InitiationSize];
        if (!NoiseHandshake.TryCreateInitiation(_local, peer, index, _time.GetUtcNow(), message))
        {
            _indices.Remove(index);
            return;
        }

        peer.Cookies.AddMacs(message, MessageLayout.InitiationMac1, _time);
        message.CopyTo(output.AddDatagram(message.Length, peer.Endpoint));
        peer.SentBytes += message.Length;
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
