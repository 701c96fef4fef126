using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The sender's side of the MACs (the paper, section 5.4.4): MAC1 keyed by the receiver's public key on every
/// handshake message, MAC2 keyed by the last cookie the receiver sent us while it is under two minutes old,
/// zeros otherwise. One per peer.
/// </summary>
internal sealed class CookieGenerator
{
    private readonly INoiseHash _hash;
    private readonly IAead _extendedAead;
    private readonly byte[] _mac1Key = new byte[MessageLayout.KeySize];
    private readonly byte[] _cookieKey = new byte[MessageLayout.KeySize];
    private readonly byte[] _cookie = new byte[MessageLayout.MacSize];
    private readonly byte[] _lastMac1 = new byte[MessageLayout.MacSize];
    private long _cookieTimestamp;
    private bool _hasCookie;
    private bool _hasLastMac1;

    public CookieGenerator(TunnelCrypto crypto, ReadOnlySpan<byte> peerPublicKey)
    {
        _hash = crypto.Hash;
        _extendedAead = crypto.ExtendedAead;
        crypto.Hash.Hash(System.Text.Encoding.ASCII.GetBytes(WireGuardProtocol.LabelMac1), peerPublicKey, _mac1Key);
        crypto.Hash.Hash(System.Text.Encoding.ASCII.GetBytes(WireGuardProtocol.LabelCookie), peerPublicKey, _cookieKey);
    }

    /// <summary>Fills MAC1 and MAC2 of a handshake message whose MAC1 starts at <paramref name="mac1Offset"/>.</summary>
    public void AddMacs(Span<byte> message, int mac1Offset, TimeProvider time)
    {
        var mac2Offset = mac1Offset + MessageLayout.MacSize;
        _hash.Mac(_mac1Key, message[..mac1Offset], message.Slice(mac1Offset, MessageLayout.MacSize));
        message.Slice(mac1Offset, MessageLayout.MacSize).CopyTo(_lastMac1);
        _hasLastMac1 = true;

        var mac2 = message.Slice(mac2Offset, MessageLayout.MacSize);
        if (_hasCookie && time.GetElapsedTime(_cookieTimestamp) < WireGuardProtocol.CookieRefreshTime)
        {
            _hash.Mac(_cookie, message[..mac2Offset], mac2);
        }
        else
        {
            mac2.Clear();
        }
    }

    /// <summary>Decrypts a cookie reply to the last message we sent; false when it does not authenticate.</summary>
    public bool TryConsumeReply(ReadOnlySpan<byte> reply, TimeProvider time)
    {
        if (!_hasLastMac1)
        {
            return false;
        }

        using var key = _extendedAead.CreateKey(_cookieKey);
        Span<byte> cookie = stackalloc byte[MessageLayout.MacSize];
        if (!key.TryOpen(
                reply.Slice(MessageLayout.CookieReplyNonce, MessageLayout.CookieReplyNonceSize),
                _lastMac1,
                reply[MessageLayout.CookieReplyCookie..],
                cookie))
        {
            return false;
        }

        cookie.CopyTo(_cookie);
        CryptographicOperations.ZeroMemory(cookie);
        _cookieTimestamp = time.GetTimestamp();
        _hasCookie = true;
        return true;
    }
}
