using Salvo.Tunnel;
using Salvo.Tunnel.Crypto;

namespace Salvo.Fuzz.Targets;

/// <summary>
/// X25519 whose "random" private keys (the handshake's ephemerals) come from a counter: the same input makes the same
/// handshake on every run, so afl sees one path per input rather than one per random key.
/// </summary>
internal sealed class SeededKeyAgreement(IKeyAgreement inner) : IKeyAgreement
{
    private byte _next = 0x40;

    public void GeneratePrivateKey(Span<byte> privateKey)
    {
        privateKey[..WireGuardKey.Size].Fill(_next++);
        WireGuardKey.Clamp(privateKey);
    }

    public void DerivePublicKey(ReadOnlySpan<byte> privateKey, Span<byte> publicKey) => inner.DerivePublicKey(privateKey, publicKey);

    public bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret) =>
        inner.TryAgree(privateKey, publicKey, sharedSecret);
}
