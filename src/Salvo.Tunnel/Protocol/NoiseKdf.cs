using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Protocol;

/// <summary>
/// The HKDF of the paper (section 5.4): τ0 = HMAC(key, input), τ1 = HMAC(τ0, 0x1), τi = HMAC(τ0, τ(i-1) || i).
/// Outputs are 32 bytes each; unused ones are not computed.
/// </summary>
internal static class NoiseKdf
{
    public const int OutputSize = 32;

    public static void Derive(INoiseHash hash, ReadOnlySpan<byte> chainingKey, ReadOnlySpan<byte> input, Span<byte> first, Span<byte> second = default, Span<byte> third = default)
    {
        Span<byte> secret = stackalloc byte[OutputSize];
        Span<byte> counter = stackalloc byte[1];
        try
        {
            hash.Hmac(chainingKey, input, [], secret);
            counter[0] = 1;
            hash.Hmac(secret, counter, [], first);
            if (second.IsEmpty)
            {
                return;
            }

            counter[0] = 2;
            hash.Hmac(secret, first, counter, second);
            if (third.IsEmpty)
            {
                return;
            }

            counter[0] = 3;
            hash.Hmac(secret, second, counter, third);
        }
        finally
        {
            CryptographicOperations.ZeroMemory(secret);
        }
    }
}
