using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Support;

/// <summary>X25519 that, once armed, holds its next caller until released: a Diffie-Hellman that takes as long as the test wants.</summary>
internal sealed class GatedKeyAgreement(IKeyAgreement inner) : IKeyAgreement
{
    private readonly ManualResetEventSlim _release = new(initialState: true);
    private int _armed;

    public ManualResetEventSlim Entered { get; } = new();

    public void Arm()
    {
        _release.Reset();
        Volatile.Write(ref _armed, 1);
    }

    public void Release() => _release.Set();

    public void GeneratePrivateKey(Span<byte> privateKey) => inner.GeneratePrivateKey(privateKey);

    public void DerivePublicKey(ReadOnlySpan<byte> privateKey, Span<byte> publicKey) => inner.DerivePublicKey(privateKey, publicKey);

    public bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret)
    {
        if (Interlocked.Exchange(ref _armed, 0) == 1)
        {
            Entered.Set();
            _release.Wait(TimeSpan.FromSeconds(60));
        }

        return inner.TryAgree(privateKey, publicKey, sharedSecret);
    }
}
