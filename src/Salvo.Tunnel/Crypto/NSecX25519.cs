using System.Security.Cryptography;
using NSec.Cryptography;

namespace Salvo.Tunnel.Crypto;

/// <summary>X25519 from libsodium through NSec. Used on the handshake path only, so a key object per call is fine.</summary>
internal sealed class NSecX25519 : IKeyAgreement
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
        using var key = Key.Import(KeyAgreementAlgorithm.X25519, privateKey, KeyBlobFormat.RawPrivateKey, new KeyCreationParameters { ExportPolicy = KeyExportPolicies.AllowPlaintextExport });
        if (!key.PublicKey.TryExport(KeyBlobFormat.RawPublicKey, publicKey, out var written) || written != WireGuardKey.Size)
        {
            throw new CryptographicException("X25519 public key export failed.");
        }
    }

    /// <inheritdoc />
    public bool TryAgree(ReadOnlySpan<byte> privateKey, ReadOnlySpan<byte> publicKey, Span<byte> sharedSecret)
    {
        if (!PublicKey.TryImport(KeyAgreementAlgorithm.X25519, publicKey, KeyBlobFormat.RawPublicKey, out var peer) || peer is null)
        {
            return false;
        }

        using var key = Key.Import(KeyAgreementAlgorithm.X25519, privateKey, KeyBlobFormat.RawPrivateKey, new KeyCreationParameters { ExportPolicy = KeyExportPolicies.AllowPlaintextExport });
        using var secret = KeyAgreementAlgorithm.X25519.Agree(key, peer, new SharedSecretCreationParameters { ExportPolicy = KeyExportPolicies.AllowPlaintextExport });
        if (secret is null)
        {
            return false;
        }

        var raw = secret.Export(SharedSecretBlobFormat.RawSharedSecret);
        try
        {
            raw.CopyTo(sharedSecret);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(raw);
        }

        return true;
    }
}
