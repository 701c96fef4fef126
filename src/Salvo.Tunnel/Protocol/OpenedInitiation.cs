using System.Security.Cryptography;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// An initiation the responder has decrypted but not yet accepted: who sent it, its timestamp, and the Noise state
/// after it (then, once the response is sealed, the final chaining key). Held by one handshake in flight, outside the
/// engine's lock, and wiped when disposed.
/// </summary>
internal sealed class OpenedInitiation : IDisposable
{
    /// <summary>The initiator's static public key.</summary>
    public byte[] RemoteStatic { get; } = new byte[MessageLayout.KeySize];

    public byte[] RemoteEphemeral { get; } = new byte[MessageLayout.KeySize];

    public byte[] Timestamp { get; } = new byte[Tai64N.Size];

    public byte[] ChainingKey { get; } = new byte[MessageLayout.KeySize];

    public byte[] Hash { get; } = new byte[MessageLayout.KeySize];

    /// <summary>A copy of the peer's preshared key taken under the lock (a key set meanwhile wipes the peer's own bytes).</summary>
    public byte[] PresharedKey { get; } = new byte[MessageLayout.KeySize];

    /// <summary>The initiator's session index.</summary>
    public uint RemoteIndex { get; set; }

    public void Dispose()
    {
        CryptographicOperations.ZeroMemory(ChainingKey);
        CryptographicOperations.ZeroMemory(Hash);
        CryptographicOperations.ZeroMemory(PresharedKey);
    }
}
