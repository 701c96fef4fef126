using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>libsodium's X25519 (through NSec), the JIT build's.</summary>
public sealed class NSecX25519Tests : X25519ContractTests
{
    private protected override IKeyAgreement X25519 { get; } = new NSecX25519();
}
