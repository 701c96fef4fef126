using System.Diagnostics.CodeAnalysis;

namespace Salvo.Tunnel.Crypto;

/// <summary>The set of primitives one tunnel uses; every piece can be swapped for a measured alternative.</summary>
/// <param name="Aead">ChaCha20-Poly1305 with a 12-byte nonce: handshake fields and transport data.</param>
/// <param name="ExtendedAead">XChaCha20-Poly1305 with a 24-byte nonce: cookie replies.</param>
/// <param name="KeyAgreement">X25519.</param>
/// <param name="Hash">BLAKE2s, its keyed MAC and HMAC.</param>
internal sealed record TunnelCrypto(IAead Aead, IAead ExtendedAead, IKeyAgreement KeyAgreement, INoiseHash Hash)
{
    /// <summary>
    /// The runtime switch that leaves libsodium out. The native daemon sets it false with trimming, so NSec and its
    /// native library drop out of the single-file binary: Debian 12's static libsodium is 1.0.18 and NSec 26 refuses
    /// anything older than the 1.0.22 it ships as a shared library.
    /// </summary>
    internal const string LibsodiumSwitch = "Salvo.Tunnel.Crypto.UseLibsodium";

    /// <summary>
    /// The platform's ChaCha20-Poly1305 where it has one (<see cref="PlatformAead"/>: OpenSSL on Linux, 3.3 times
    /// libsodium's speed on an AVX-512 CPU), else libsodium's; libsodium through NSec for XChaCha20-Poly1305 and
    /// X25519, BouncyCastle for BLAKE2s. Without libsodium (<see cref="LibsodiumSwitch"/> false), BouncyCastle's
    /// X25519 and ChaCha20-Poly1305 take libsodium's place.
    /// </summary>
    public static TunnelCrypto Default { get; } = UseLibsodium ? WithLibsodium() : Managed();

    /// <summary>The primitives without libsodium: the platform's cipher first, BouncyCastle for the rest.</summary>
    internal static TunnelCrypto Managed() => new(
        (IAead?)PlatformAead.ChaCha20Poly1305 ?? BouncyCastleChaCha20Poly1305.Instance,
        new ExtendedNonceAead((IAead?)PlatformAead.ChaCha20Poly1305 ?? BouncyCastleChaCha20Poly1305.Instance),
        new BouncyCastleX25519(),
        new BouncyCastleBlake2s());

    [FeatureSwitchDefinition(LibsodiumSwitch)]
    private static bool UseLibsodium => !AppContext.TryGetSwitch(LibsodiumSwitch, out var enabled) || enabled;

    private static TunnelCrypto WithLibsodium() => new(
        (IAead?)PlatformAead.ChaCha20Poly1305 ?? NSecAead.ChaCha20Poly1305,
        NSecAead.XChaCha20Poly1305,
        new NSecX25519(),
        new BouncyCastleBlake2s());
}
