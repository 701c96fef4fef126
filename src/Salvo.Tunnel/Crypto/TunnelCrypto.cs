namespace Salvo.Tunnel.Crypto;

/// <summary>The set of primitives one tunnel uses; every piece can be swapped for a measured alternative.</summary>
/// <param name="Aead">ChaCha20-Poly1305 with a 12-byte nonce: handshake fields and transport data.</param>
/// <param name="ExtendedAead">XChaCha20-Poly1305 with a 24-byte nonce: cookie replies.</param>
/// <param name="KeyAgreement">X25519.</param>
/// <param name="Hash">BLAKE2s, its keyed MAC and HMAC.</param>
internal sealed record TunnelCrypto(IAead Aead, IAead ExtendedAead, IKeyAgreement KeyAgreement, INoiseHash Hash)
{
    /// <summary>
    /// The platform's ChaCha20-Poly1305 where it has one (<see cref="PlatformAead"/>: OpenSSL on Linux, 3.3 times
    /// libsodium's speed on an AVX-512 CPU), else libsodium's; libsodium through NSec for XChaCha20-Poly1305 and
    /// X25519, BouncyCastle for BLAKE2s.
    /// </summary>
    public static TunnelCrypto Default { get; } = new(
        (IAead?)PlatformAead.ChaCha20Poly1305 ?? NSecAead.ChaCha20Poly1305,
        NSecAead.XChaCha20Poly1305,
        new NSecX25519(),
        new BouncyCastleBlake2s());
}
