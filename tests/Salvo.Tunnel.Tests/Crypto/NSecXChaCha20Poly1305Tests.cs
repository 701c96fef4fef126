using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>libsodium's XChaCha20-Poly1305 (through NSec), which seals cookie replies (24-byte nonce).</summary>
public sealed class NSecXChaCha20Poly1305Tests : AeadContractTests
{
    private protected override IAead Aead => NSecAead.XChaCha20Poly1305;

    protected override byte[] Nonce { get; } = Hex.Bytes("000000000000000000000000000000000000000000000009");
}
