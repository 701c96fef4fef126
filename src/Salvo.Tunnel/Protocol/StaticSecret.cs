using System.Security.Cryptography;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// DH(our static private, a peer's static public) for one identity of ours, computed once and never changed after:
/// a peer's session publishes it with one volatile write and any thread may read it, so the responder computes it
/// outside the engine's lock once per peer instead of once per initiation (one X25519 of the five, about 50 us here).
/// A new identity of ours (<c>wg set private-key</c>) is another <see cref="LocalIdentity"/>, which the value does not
/// match; a peer's new key is a new peer, with a session of its own.
/// </summary>
internal sealed class StaticSecret
{
    private readonly byte[]? _value;

    private StaticSecret(LocalIdentity local, byte[]? value)
    {
        Local = local;
        _value = value;
    }

    /// <summary>The identity of ours it was computed with.</summary>
    public LocalIdentity Local { get; }

    /// <summary>Computes it; a low-order peer key (no secret) is remembered as such.</summary>
    public static StaticSecret Compute(LocalIdentity local, ReadOnlySpan<byte> publicKey)
    {
        ArgumentNullException.ThrowIfNull(local);
        var value = new byte[MessageLayout.KeySize];
        if (local.Crypto.KeyAgreement.TryAgree(local.PrivateKey, publicKey, value))
        {
            return new StaticSecret(local, value);
        }

        CryptographicOperations.ZeroMemory(value);
        return new StaticSecret(local, null);
    }

    /// <summary>Copies the secret; false for a low-order peer key.</summary>
    public bool TryCopyTo(Span<byte> destination)
    {
        if (_value is null)
        {
            return false;
        }

        _value.CopyTo(destination);
        return true;
    }

    /// <summary>Zeroes the bytes: the session that held it was reset or disposed, or it was never published.</summary>
    public void Wipe()
    {
        if (_value is not null)
        {
            CryptographicOperations.ZeroMemory(_value);
        }
    }
}
