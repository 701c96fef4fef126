using System.Buffers.Binary;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Paths;
using Salvo.Tunnel.Protocol;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// One initiator of a handshake storm, made of the protocol's own pieces and no engine, for the storm test and
/// benchmarks/handshake-storm. Its initiation (ephemeral key and both of its Diffie-Hellman operations) is made when it
/// is built, so a storm spends its time in the responder. A cookie reply is answered with the same initiation carrying
/// MAC2, as the engine answers one (TunnelEngine.Receive.cs); the response is taken and the session confirmed with a
/// keepalive, the first data packet of the new session.
/// </summary>
internal sealed class StormInitiator
{
    private readonly LocalIdentity _local;
    private readonly Peer _responder;
    private readonly TimeProvider _time;

    public StormInitiator(WireGuardKey privateKey, WireGuardKey responderPublicKey, uint index, DatagramAddress source, TimeProvider time)
    {
        var crypto = TunnelCrypto.Default;
        _local = new LocalIdentity(crypto, privateKey);
        _responder = new Peer(responderPublicKey, TcpFallbackMode.Off, new PeerSessionPool(crypto, _ => { }));
        _time = time;
        Source = source;
        if (!NoiseHandshake.TryCreateInitiation(_local, _responder, index, time.GetUtcNow(), Initiation))
        {
            throw new InvalidOperationException("The responder's public key is a low-order point.");
        }

        _responder.Cookies.AddMacs(Initiation, MessageLayout.InitiationMac1, time);
    }

    /// <summary>The address this initiator sends from.</summary>
    public DatagramAddress Source { get; }

    /// <summary>The initiation to send: MAC1 only at first, MAC2 too once a cookie came.</summary>
    public byte[] Initiation { get; } = new byte[MessageLayout.InitiationSize];

    /// <summary>Takes a cookie reply and puts MAC2 on the initiation; false when the reply does not authenticate.</summary>
    public bool TakeCookie(ReadOnlySpan<byte> reply)
    {
        if (!_responder.Cookies.TryConsumeReply(reply, _time))
        {
            return false;
        }

        _responder.Cookies.AddMacs(Initiation, MessageLayout.InitiationMac1, _time);
        return true;
    }

    /// <summary>Takes the response and returns the keepalive that confirms the session; null when the response does not authenticate.</summary>
    public byte[]? TakeResponse(ReadOnlySpan<byte> response)
    {
        if (!NoiseHandshake.TryConsumeResponse(_local, _responder, response))
        {
            return null;
        }

        using var keypair = NoiseHandshake.DeriveKeypair(_local, _responder.Handshake, isInitiator: true, _time.GetTimestamp());
        var keepalive = new byte[MessageLayout.TransportMinimumSize];
        MessageLayout.WriteType(keepalive, MessageType.Transport);
        MessageLayout.WriteIndex(keepalive, MessageLayout.TransportReceiver, keypair.RemoteIndex);
        BinaryPrimitives.WriteUInt64LittleEndian(keepalive.AsSpan(MessageLayout.TransportCounter), 0);
        Span<byte> nonce = stackalloc byte[12];
        MessageLayout.WriteNonce(nonce, 0);
        keypair.Send.Seal(nonce, [], [], keepalive.AsSpan(MessageLayout.TransportHeaderSize));
        return keepalive;
    }
}
