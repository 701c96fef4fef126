using System.Buffers.Binary;
using System.Numerics;

namespace Salvo.Tunnel.Crypto;

/// <summary>
/// HChaCha20 (draft-irtf-cfrg-xchacha-03 section 2.2): the ChaCha20 block function without the final addition,
/// which turns a 32-byte key and the first 16 bytes of a 24-byte nonce into the subkey XChaCha20 uses.
/// </summary>
internal static class HChaCha20
{
    /// <summary>Bytes of nonce HChaCha20 takes.</summary>
    public const int NonceSize = 16;

    /// <summary>Writes the 32-byte subkey of <paramref name="key"/> and <paramref name="nonce"/> to <paramref name="subkey"/>.</summary>
    public static void DeriveSubkey(ReadOnlySpan<byte> key, ReadOnlySpan<byte> nonce, Span<byte> subkey)
    {
        Span<uint> state = stackalloc uint[16];
        // "expand 32-byte k" as four little-endian words (RFC 8439 section 2.3).
        state[0] = 0x61707865;
        state[1] = 0x3320646e;
        state[2] = 0x79622d32;
        state[3] = 0x6b206574;
        for (var i = 0; i < 8; i++)
        {
            state[4 + i] = BinaryPrimitives.ReadUInt32LittleEndian(key[(i * 4)..]);
        }

        for (var i = 0; i < 4; i++)
        {
            state[12 + i] = BinaryPrimitives.ReadUInt32LittleEndian(nonce[(i * 4)..]);
        }

        // 20 rounds: ten column-and-diagonal double rounds.
        for (var round = 0; round < 10; round++)
        {
            QuarterRound(state, 0, 4, 8, 12);
            QuarterRound(state, 1, 5, 9, 13);
            QuarterRound(state, 2, 6, 10, 14);
            QuarterRound(state, 3, 7, 11, 15);
            QuarterRound(state, 0, 5, 10, 15);
            QuarterRound(state, 1, 6, 11, 12);
            QuarterRound(state, 2, 7, 8, 13);
            QuarterRound(state, 3, 4, 9, 14);
        }

        for (var i = 0; i < 4; i++)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(subkey[(i * 4)..], state[i]);
            BinaryPrimitives.WriteUInt32LittleEndian(subkey[(16 + (i * 4))..], state[12 + i]);
        }

        state.Clear();
    }

    private static void QuarterRound(Span<uint> s, int a, int b, int c, int d)
    {
        s[a] += s[b];
        s[d] = BitOperations.RotateLeft(s[d] ^ s[a], 16);
        s[c] += s[d];
        s[b] = BitOperations.RotateLeft(s[b] ^ s[c], 12);
        s[a] += s[b];
        s[d] = BitOperations.RotateLeft(s[d] ^ s[a], 8);
        s[c] += s[d];
        s[b] = BitOperations.RotateLeft(s[b] ^ s[c], 7);
    }
}
