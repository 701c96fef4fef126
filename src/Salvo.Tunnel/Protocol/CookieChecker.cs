using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The receiver's side of the MACs (the paper, section 5.4.7): checks MAC1 against our own public key, and
/// under load checks MAC2 against a cookie bound to the sender's address, answering a message without a valid
/// MAC2 with a cookie reply instead of doing Diffie-Hellman for it. The cookie is MAC(secret, address || port)
/// with a random secret that changes every two minutes.
/// </summary>
internal sealed class CookieChecker
{
    private const int AddressBytesMaximum = 18;

    private readonly INoiseHash _hash;
    private readonly IAeadKey _cookieCipher;
    private readonly byte[] _mac1Key = new byte[MessageLayout.KeySize];
    private readonly byte[] _secret = new byte[MessageLayout.KeySize];
    private long _secretTimestamp;
    private bool _hasSecret;

    public CookieChecker(TunnelCrypto crypto, ReadOnlySpan<byte> localPublicKey)
    {
        _hash = crypto.Hash;
        Span<byte> cookieKey = stackalloc byte[MessageLayout.KeySize];
        crypto.Hash.Hash(System.Text.Encoding.ASCII.GetBytes(WireGuardProtocol.LabelMac1), localPublicKey, _mac1Key);
        crypto.Hash.Hash(System.Text.Encoding.ASCII.GetBytes(WireGuardProtocol.LabelCookie), localPublicKey, cookieKey);
        _cookieCipher = crypto.ExtendedAead.CreateKey(cookieKey);
    }

    /// <summary>Whether MAC1 of a handshake message proves the sender knows our public key.</summary>
    public bool IsMac1Valid(ReadOnlySpan<byte> message, int mac1Offset)
    {
        Span<byte> expected = stackalloc byte[MessageLayout.MacSize];
        _hash.Mac(_mac1Key, message[..mac1Offset], expected);
        return CryptographicOperations.FixedTimeEquals(expected, message.Slice(mac1Offset, MessageLayout.MacSize));
    }

    /// <summary>Whether MAC2 carries the cookie we would give <paramref name="source"/> now.</summary>
    public bool IsMac2Valid(ReadOnlySpan<byte> message, int mac1Offset, DatagramAddress source, TimeProvider time)
    {
        if (!_hasSecret || time.GetElapsedTime(_secretTimestamp) >= WireGuardProtocol.CookieRefreshTime)
        {
            return false;
        }

        var mac2Offset = mac1Offset + MessageLayout.MacSize;
        Span<byte> cookie = stackalloc byte[MessageLayout.MacSize];
        Span<byte> expected = stackalloc byte[MessageLayout.MacSize];
        ComputeCookie(source, cookie);
        _hash.Mac(cookie, message[..mac2Offset], expected);
        return CryptographicOperations.FixedTimeEquals(expected, message.Slice(mac2Offset, MessageLayout.MacSize));
    }

    /// <summary>Writes a 64-byte cookie reply to <paramref name="message"/>, which <paramref name="source"/> sent.</summary>
    public void WriteReply(ReadOnlySpan<byte> message, int mac1Offset, uint senderIndex, DatagramAddress source, Span<byte> reply, TimeProvider time)
    {
        if (!_hasSecret || time.GetElapsedTime(_secretTimestamp) >= WireGuardProtocol.CookieRefreshTime)
        {
            RandomNumberGenerator.Fill(_secret);
            _secretTimestamp = time.GetTimestamp();
            _hasSecret = true;
        }

        MessageLayout.WriteType(reply, MessageType.CookieReply);
        MessageLayout.WriteIndex(reply, MessageLayout.CookieReplyReceiver, senderIndex);
        var nonce = reply.Slice(MessageLayout.CookieReplyNonce, MessageLayout.CookieReplyNonceSize);
        RandomNumberGenerator.Fill(nonce);
        Span<byte> cookie = stackalloc byte[MessageLayout.MacSize];
        ComputeCookie(source, cookie);
        _cookieCipher.Seal(nonce, message.Slice(mac1Offset, MessageLayout.MacSize), cookie, reply[MessageLayout.CookieReplyCookie..]);
    }

    private void ComputeCookie(DatagramAddress source, Span<byte> cookie)
    {
        Span<byte> address = stackalloc byte[AddressBytesMaximum];
        var length = source.Unmap().WriteAddressBytes(address);
        address[length++] = (byte)(source.Port >> 8);
        address[length++] = (byte)source.Port;
        _hash.Mac(_secret, address[..length], cookie);
    }
}
