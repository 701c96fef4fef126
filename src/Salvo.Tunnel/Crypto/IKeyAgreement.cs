namespace Salvo.Tunnel.Crypto;

/// <summary>Elliptic-curve Diffie-Hellman over 32-byte keys (X25519, RFC 7748).</summary>
internal interface IKeyAgreement
{
    /// <summary>Fills <paramref name="privateKey"/> (32 bytes) with a fresh random, clamped private key.</summary>
    void GeneratePrivateKey(Span<byte> privateKey);

    /// <summary>Writes the 32-byte public key of <paramref name="privateKey"/>.</summary>
    void DerivePublicKey(ReadOnlySpan<byte> privateKey, Span<byte> publicKey);

    /// <summary>
    /// Computes the 32-byte shared secret; false when the result is all zero (a low-order public key), which the
    /// handshake must refuse (RFC 7748 section 6.1).
    /// </summary>
    bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret);
}
