using System.Buffers.Binary;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The platform's ChaCha20-Poly1305 as the data path drives it: one key for thousands of packets, a new nonce for each,
/// sealed and opened in place with seals, opens and refused forgeries interleaved on the same contexts, byte for byte
/// what BouncyCastle (an independent implementation) makes; and no managed allocation per packet.
/// </summary>
public sealed class PlatformAeadOneKeyManyPacketsTests
{
    private const int TagSize = 16;

    private static IAead Platform =>
        PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");

    [Fact]
    public void ManyPacketsOnOneKey_InPlace_AgreeWithBouncyCastle()
    {
        var random = new Random(39);
        var keyBytes = new byte[32];
        random.NextBytes(keyBytes);
        using var platform = Platform.CreateKey(keyBytes);
        using var reference = BouncyCastleChaCha20Poly1305.Instance.CreateKey(keyBytes);
        var nonce = new byte[12];

        for (var packet = 0; packet < 3_000; packet++)
        {
            // Mostly WireGuard's nonces (4 zero bytes, a little-endian counter), every fifth one random; lengths up to
            // a 1,500-byte MTU, with a few large ones (GSO super-packets) and associated data now and then.
            if (packet % 5 == 4)
            {
                random.NextBytes(nonce);
            }
            else
            {
                nonce.AsSpan(0, 4).Clear();
                BinaryPrimitives.WriteUInt64LittleEndian(nonce.AsSpan(4), (ulong)packet);
            }

            var length = packet % 97 == 0 ? random.Next(1_500, 65_536) : random.Next(0, 1_501);
            var associated = new byte[packet % 3 == 0 ? random.Next(1, 40) : 0];
            random.NextBytes(associated);
            var plaintext = new byte[length];
            random.NextBytes(plaintext);

            var expected = new byte[length + TagSize];
            reference.Seal(nonce, associated, plaintext, expected);
            var buffer = new byte[length + TagSize];
            plaintext.CopyTo(buffer, 0);
            platform.Seal(nonce, associated, buffer.AsSpan(0, length), buffer);
            Assert.Equal(expected, buffer);

            if (packet % 7 == 0)
            {
                // A forgery refused on the opening context must leave nothing behind for the next packet.
                var forged = (byte[])buffer.Clone();
                forged[random.Next(forged.Length)] ^= (byte)(1 << random.Next(8));
                Assert.False(platform.TryOpen(nonce, associated, forged, forged.AsSpan(0, length)));
            }

            Assert.True(platform.TryOpen(nonce, associated, buffer, buffer.AsSpan(0, length)));
            Assert.Equal(plaintext, buffer.AsSpan(0, length).ToArray());
        }
    }

    [Fact]
    public void TryOpen_WrongNonceOrAssociatedData_Refused()
    {
        using var key = Platform.CreateKey(Rfc8439Vector.Key);
        var buffer = new byte[1_420 + TagSize];
        key.Seal(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, buffer.AsSpan(0, 1_420), buffer);
        var otherNonce = (byte[])Rfc8439Vector.Nonce.Clone();
        otherNonce[^1] ^= 1;
        var scratch = new byte[1_420];

        Assert.False(key.TryOpen(otherNonce, Rfc8439Vector.AssociatedData, buffer, scratch));
        Assert.False(key.TryOpen(Rfc8439Vector.Nonce, [], buffer, scratch));
        Assert.True(key.TryOpen(Rfc8439Vector.Nonce, Rfc8439Vector.AssociatedData, buffer, scratch));
    }

    [Fact]
    public void SealAndOpen_AllocateNothing()
    {
        using var key = Platform.CreateKey(Rfc8439Vector.Key);
        var buffer = new byte[1_420 + TagSize];
        var nonce = new byte[12];
        var forged = new byte[1_420 + TagSize];
        RunPackets(key, buffer, nonce, forged, 200);

        var before = GC.GetAllocatedBytesForCurrentThread();
        RunPackets(key, buffer, nonce, forged, 2_000);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
    }

    private static void RunPackets(IAeadKey key, byte[] buffer, byte[] nonce, byte[] forged, int packets)
    {
        for (var packet = 0; packet < packets; packet++)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(nonce.AsSpan(4), (ulong)packet);
            key.Seal(nonce, [], buffer.AsSpan(0, 1_420), buffer);
            buffer.CopyTo(forged, 0);
            forged[0] ^= 1;
            Assert.False(key.TryOpen(nonce, [], forged, forged.AsSpan(0, 1_420)));
            Assert.True(key.TryOpen(nonce, [], buffer, buffer.AsSpan(0, 1_420)));
        }
    }
}
