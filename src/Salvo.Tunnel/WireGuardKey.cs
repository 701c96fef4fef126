using System.Buffers.Text;
using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel;

/// <summary>
/// A 32-byte Curve25519 key (private, public or preshared) in the text form <c>wg</c> uses: standard base64
/// with padding, 44 characters.
/// </summary>
public sealed class WireGuardKey : IEquatable<WireGuardKey>
{
    /// <summary>Bytes in every key.</summary>
    public const int Size = 32;

    /// <summary>Characters of the base64 form: 4 * ceil(32 / 3).</summary>
    public const int Base64Length = 44;

    private readonly byte[] _bytes;

    private WireGuardKey(byte[] bytes) => _bytes = bytes;

    /// <summary>The raw key.</summary>
    public ReadOnlySpan<byte> Bytes => _bytes;

    /// <summary>Whether every byte is zero (an unset preshared key).</summary>
    public bool IsZero => !_bytes.AsSpan().ContainsAnyExcept((byte)0);

    /// <summary>A copy of <paramref name="bytes"/> as a key.</summary>
    /// <exception cref="ArgumentException">Not exactly 32 bytes.</exception>
    public static WireGuardKey FromBytes(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length != Size)
        {
            throw new ArgumentException($"A key is {Size} bytes, not {bytes.Length}.", nameof(bytes));
        }

        return new WireGuardKey(bytes.ToArray());
    }

    /// <summary>A new random private key, clamped like <c>wg genkey</c>'s.</summary>
    public static WireGuardKey GeneratePrivateKey()
    {
        var bytes = new byte[Size];
        TunnelCrypto.Default.KeyAgreement.GeneratePrivateKey(bytes);
        return new WireGuardKey(bytes);
    }

    /// <summary>A new random preshared key (<c>wg genpsk</c>): 32 random bytes, no clamping.</summary>
    public static WireGuardKey GeneratePresharedKey() => new(RandomNumberGenerator.GetBytes(Size));

    /// <summary>Parses the base64 form; false for anything that is not 44 characters decoding to 32 bytes.</summary>
    public static bool TryParse(ReadOnlySpan<char> text, out WireGuardKey? key)
    {
        key = null;
        text = text.Trim();
        if (text.Length != Base64Length)
        {
            return false;
        }

        var bytes = new byte[Size];
        if (!Convert.TryFromBase64Chars(text, bytes, out var written) || written != Size)
        {
            return false;
        }

        key = new WireGuardKey(bytes);
        return true;
    }

    /// <summary>Parses the base64 form.</summary>
    /// <exception cref="FormatException">Not a 44-character base64 encoding of 32 bytes.</exception>
    public static WireGuardKey Parse(ReadOnlySpan<char> text) =>
        TryParse(text, out var key) ? key! : throw new FormatException("A key is 44 characters of base64 encoding 32 bytes.");

    /// <summary>
    /// Clamps a Curve25519 scalar (RFC 7748 section 5): clears the low three bits and the top bit, sets bit 254.
    /// </summary>
    public static void Clamp(Span<byte> privateKey)
    {
        privateKey[0] &= 248;
        privateKey[31] = (byte)((privateKey[31] & 127) | 64);
    }

    /// <summary>The public key of this private key (<c>wg pubkey</c>).</summary>
    public WireGuardKey DerivePublicKey() => DerivePublicKey(TunnelCrypto.Default.KeyAgreement);

    /// <summary>The public key of this private key, by <paramref name="keyAgreement"/>'s X25519.</summary>
    internal WireGuardKey DerivePublicKey(IKeyAgreement keyAgreement)
    {
        var bytes = new byte[Size];
        keyAgreement.DerivePublicKey(_bytes, bytes);
        return new WireGuardKey(bytes);
    }

    /// <summary>The base64 form, as <c>wg</c> prints it.</summary>
    public override string ToString()
    {
        Span<byte> utf8 = stackalloc byte[Base64Length];
        Base64.EncodeToUtf8(_bytes, utf8, out _, out _);
        return System.Text.Encoding.ASCII.GetString(utf8);
    }

    /// <summary>Constant-time comparison, so comparing secrets leaks nothing through timing.</summary>
    public bool Equals(WireGuardKey? other) =>
        other is not null && CryptographicOperations.FixedTimeEquals(_bytes, other._bytes);

    /// <inheritdoc />
    public override bool Equals(object? obj) => Equals(obj as WireGuardKey);

    /// <inheritdoc />
    /// <remarks>
    /// Over all 32 bytes with the process's random seed: the first four bytes alone let a <c>set</c> of keys that share
    /// them (any client can choose public keys) make <c>replace_peers</c>' set of named keys quadratic, 10,000 peers
    /// taking over 30 s under the engine's lock.
    /// </remarks>
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.AddBytes(_bytes);
        return hash.ToHashCode();
    }
}
