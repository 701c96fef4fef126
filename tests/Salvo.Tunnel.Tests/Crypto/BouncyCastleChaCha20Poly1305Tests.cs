using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>BouncyCastle's managed ChaCha20-Poly1305, the native daemon's cipher where the platform has none.</summary>
public sealed class BouncyCastleChaCha20Poly1305Tests : ChaCha20Poly1305ContractTests
{
    private protected override IAead Aead => BouncyCastleChaCha20Poly1305.Instance;
}
