using System.Text;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>This end's static key pair and the values every handshake starts from.</summary>
internal sealed class LocalIdentity
{
    public LocalIdentity(TunnelCrypto crypto, WireGuardKey privateKey)
    {
        Crypto = crypto;
        PrivateKey = privateKey.Bytes.ToArray();
        PublicKey = privateKey.DerivePublicKey(crypto.KeyAgreement).Bytes.ToArray();
        crypto.Hash.Hash(Encoding.ASCII.GetBytes(WireGuardProtocol.Construction), [], InitialChainingKey);
        crypto.Hash.Hash(InitialChainingKey, Encoding.ASCII.GetBytes(WireGuardProtocol.Identifier), InitialHash);
    }

    public TunnelCrypto Crypto { get; }

    public byte[] PrivateKey { get; }

    public byte[] PublicKey { get; }

    /// <summary>HASH(CONSTRUCTION).</summary>
    public byte[] InitialChainingKey { get; } = new byte[MessageLayout.KeySize];

    /// <summary>HASH(HASH(CONSTRUCTION) || IDENTIFIER).</summary>
    public byte[] InitialHash { get; } = new byte[MessageLayout.KeySize];
}
