using Org.BouncyCastle.Crypto.Digests;
using Org.BouncyCastle.Crypto.Macs;
using Org.BouncyCastle.Crypto.Parameters;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// BLAKE2s from BouncyCastle. Its digest objects hold state, so each call makes its own: this runs on the
/// handshake and cookie paths, never per data packet.
/// </summary>
internal sealed class BouncyCastleBlake2s : INoiseHash
{
    private const int HashSize = 32;
    private const int MacSize = 16;

    /// <inheritdoc />
    public void Hash(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> output)
    {
        var digest = new Blake2sDigest(HashSize * 8);
        digest.BlockUpdate(first);
        digest.BlockUpdate(second);
        digest.DoFinal(output);
    }

    /// <inheritdoc />
    public void Mac(ReadOnlySpan<byte> key, ReadOnlySpan<byte> input, Span<byte> output)
    {
        var digest = new Blake2sDigest(key.ToArray(), MacSize, null, null);
        digest.BlockUpdate(input);
        digest.DoFinal(output);
    }

    /// <inheritdoc />
    public void Hmac(ReadOnlySpan<byte> key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> output)
    {
        var hmac = new HMac(new Blake2sDigest(HashSize * 8));
        hmac.Init(new KeyParameter(key));
        hmac.BlockUpdate(first);
        hmac.BlockUpdate(second);
        hmac.DoFinal(output);
    }
}
