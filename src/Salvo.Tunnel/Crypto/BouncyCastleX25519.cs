using System.Security.Cryptography;
using Org.BouncyCastle.Math.EC.Rfc7748;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// X25519 in managed code from BouncyCastle (already the tunnel's BLAKE2s), for the native daemon that leaves
/// libsodium out. Handshake path only, so the temporary arrays, wiped after use, are fine.
/// </summary>
internal sealed class BouncyCastleX25519 : IKeyAgreement
{
    /// <inheritdoc />
    public void GeneratePrivateKey(Span<byte> privateKey)
    {
        RandomNumberGenerator.Fill(privateKey[..WireGuardKey.Size]);
        WireGuardKey.Clamp(privateKey);
    }

    /// <inheritdoc />
    public void DerivePublicKey(ReadOnlySpan<byte> privateKey, Span<byte> publicKey)
    {
        var scalar = privateKey[..X25519.ScalarSize].ToArray();
        var point = new byte[X25519.PointSize];
        try
        {
            X25519.ScalarMultBase(scalar, 0, point, 0);
            point.CopyTo(publicKey);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(scalar);
        }
    }

    /// <inheritdoc />
    public bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret)
    {
        if (publicKey.Length != X25519.PointSize)
        {
            return false;
        }

        var scalar = privateKey[..X25519.ScalarSize].ToArray();
        var secret = new byte[X25519.PointSize];
        try
        {
            // False when the result is all zero: a low-order point (RFC 7748 section 6.1).
            if (!X25519.CalculateAgreement(scalar, 0, publicKey.ToArray(), 0, secret, 0))
            {
                return false;
            }

            secret.CopyTo(sharedSecret);
            return true;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(scalar);
            CryptographicOperations.ZeroMemory(secret);
        }
    }
}
