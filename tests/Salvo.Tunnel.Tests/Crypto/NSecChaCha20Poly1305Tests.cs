using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>libsodium's ChaCha20-Poly1305 (through NSec), the tunnel's cipher where the platform has none.</summary>
public sealed class NSecChaCha20Poly1305Tests : ChaCha20Poly1305ContractTests
{
    private protected override IAead Aead => NSecAead.ChaCha20Poly1305;
}
