using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>Everything the engine keeps about one peer: keys, endpoint, handshake, sessions, timers, waiting packets.</summary>
internal sealed class Peer : IDisposable
{
    /// <summary>Packets kept while a handshake is under way; the oldest are dropped past this (the reference keeps 128).</summary>
    public const int StagedPacketLimit = 128;

    private byte[]? _staticSecret;
    private volatile EndpointBox _endpoint = new(default);
    private bool _staticSecretInvalid;

    public Peer(TunnelCrypto crypto, WireGuardKey publicKey, WireGuardKey? presharedKey)
    {
        PublicKeyText = publicKey;
        PublicKey = publicKey.Bytes.ToArray();
        PresharedKey = presharedKey?.Bytes.ToArray() ?? new byte[MessageLayout.KeySize];
        Cookies = new CookieGenerator(crypto, PublicKey);
    }

    public WireGuardKey PublicKeyText { get; }

    public byte[] PublicKey { get; }

    /// <summary>The preshared key, or 32 zero bytes when none is set (the protocol mixes zeros then).</summary>
    public byte[] PresharedKey { get; }

    /// <summary>
    /// Where to send: the configured endpoint, then the source of the last authenticated packet (roaming). Held in an
    /// immutable box, so the sending thread reads it whole while the receiving thread moves it (a 32-byte struct could
    /// tear); a box is made only when the address changes.
    /// </summary>
    public DatagramAddress Endpoint
    {
        get => _endpoint.Value;
        set
        {
            if (!_endpoint.Value.Equals(value))
            {
                _endpoint = new EndpointBox(value);
            }
        }
    }

    /// <summary>The device-to-network direction's work for this peer in the current batch.</summary>
    public PeerTally SendTally { get; } = new();

    /// <summary>The network-to-device direction's work for this peer in the current batch.</summary>
    public PeerTally ReceiveTally { get; } = new();

    public TimeSpan PersistentKeepalive { get; set; }

    /// <summary>Which path (UDP or TCP) messages go over, and the fallback's timers.</summary>
    public required Paths.PeerPath Path { get; init; }

    public HandshakeState Handshake { get; } = new();

    /// <summary>Initiations sent, and how many in a row went unanswered.</summary>
    public PeerInitiations Initiations { get; } = new();

    public CookieGenerator Cookies { get; }

    public PeerTimers Timers { get; } = new();

    /// <summary>Whether the engine's tick visits this peer (a deadline is armed or the path is away from rest).</summary>
    public bool IsTicking { get; set; }

    public Keypair? Previous { get; set; }

    public Keypair? Current { get; set; }

    /// <summary>The responder's new keys, used once the initiator's first packet under them arrives.</summary>
    public Keypair? Next { get; set; }

    public Queue<byte[]> Staged { get; } = new();

    public DateTimeOffset? LastHandshake { get; set; }

    public long ReceivedBytes { get; set; }

    public long SentBytes { get; set; }

    /// <summary>DH(our static private, peer static public), computed once; false for a low-order peer key.</summary>
    public bool TryGetStaticSecret(LocalIdentity local, Span<byte> destination)
    {
        if (_staticSecret is null && !_staticSecretInvalid)
        {
            var secret = new byte[MessageLayout.KeySize];
            if (local.Crypto.KeyAgreement.TryAgree(local.PrivateKey, PublicKey, secret))
            {
                _staticSecret = secret;
            }
            else
            {
                _staticSecretInvalid = true;
            }
        }

        if (_staticSecret is null)
        {
            return false;
        }

        _staticSecret.CopyTo(destination);
        return true;
    }

    /// <summary>Drops the cached DH result: this end's private key changed (it is computed again on the next handshake).</summary>
    public void ForgetStaticSecret()
    {
        if (_staticSecret is not null)
        {
            CryptographicOperations.ZeroMemory(_staticSecret);
        }

        _staticSecret = null;
        _staticSecretInvalid = false;
    }

    public void Dispose()
    {
        Previous?.Dispose();
        Current?.Dispose();
        Next?.Dispose();
        Handshake.Clear();
        if (_staticSecret is not null)
        {
            CryptographicOperations.ZeroMemory(_staticSecret);
        }
    }

    private sealed record EndpointBox(DatagramAddress Value);
}
