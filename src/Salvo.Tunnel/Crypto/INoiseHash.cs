namespace Salvo.Tunnel.Crypto;

/// <summary>The hash functions of the handshake: BLAKE2s-256, keyed BLAKE2s-128 and HMAC-BLAKE2s (RFC 7693, RFC 2104).</summary>
internal interface INoiseHash
{
    /// <summary>Writes BLAKE2s-256(<paramref name="first"/> || <paramref name="second"/>) to 32 bytes of <paramref name="output"/>.</summary>
    void Hash(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> output);

    /// <summary>Writes keyed BLAKE2s with a 16-byte output: the MAC of MAC1, MAC2 and cookies.</summary>
    void Mac(ReadOnlySpan<byte> key, ReadOnlySpan<byte> input, Span<byte> output);

    /// <summary>Writes HMAC-BLAKE2s(<paramref name="key"/>, <paramref name="first"/> || <paramref name="second"/>), 32 bytes.</summary>
    void Hmac(ReadOnlySpan<byte> key, ReadOnlySpan<byte> first, ReadOnlySpan<byte> second, Span<byte> output);
}
