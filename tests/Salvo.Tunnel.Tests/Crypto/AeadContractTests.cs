using System.Buffers.Binary;
using Salvo.Tunnel.Crypto;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// What the tunnel relies on from every authenticated cipher behind <see cref="IAead"/>, run once per implementation by
/// a small subclass: the known answer where one is published, round trips at every length a datagram can have, in place
/// and apart, and forged input refused with false, never an exception.
/// </summary>
public abstract class AeadContractTests
{
    /// <summary>Lengths of plaintext: every one up to two ChaCha20 blocks and past, and the sizes around a 1,420-byte MTU.</summary>
    private static readonly int[] Lengths = [.. Enumerable.Range(0, 130), 255, 256, 257, 1_023, 1_024, 1_419, 1_420, 1_421, 1_500];

    /// <summary>The implementation under test.</summary>
    private protected abstract IAead Aead { get; }

    /// <summary>The nonce every test seals under: as long as <see cref="IAead.NonceSize"/>.</summary>
    protected virtual byte[] Nonce => Rfc8439Vector.Nonce;

    [Fact]
    public void NonceSize_IsTheNonceTheTestsUse() => Assert.Equal(Nonce.Length, Aead.NonceSize);

    [Fact]
    public void TryOpen_OwnSealInPlace_RecoversThePlaintext()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var buffer = SealedVector(key);

        Assert.True(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, buffer, buffer.AsSpan(0, buffer.Length - 16)));
        Assert.Equal(Rfc8439Vector.Plaintext, buffer[..^16]);
    }

    [Fact]
    public void EmptyPlaintext_SealsToATagAlone_ThatOpens()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var tag = new byte[16];

        key.Seal(Nonce, Rfc8439Vector.AssociatedData, [], tag);

        Assert.NotEqual(new byte[16], tag);
        Assert.True(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, tag, []));
        tag[0] ^= 1;
        Assert.False(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, tag, []));
    }

    [Fact]
    public void EveryFlippedBit_OfCiphertextOrTag_IsRefusedWithoutThrowing()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var good = SealedVector(key);
        for (var bit = 0; bit < good.Length * 8; bit++)
        {
            var forged = (byte[])good.Clone();
            forged[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, forged, new byte[forged.Length - 16]), $"bit {bit} flipped was accepted");
        }

        Assert.True(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, good, new byte[good.Length - 16]));
    }

    [Fact]
    public void WrongCounterNonceOrAssociatedData_IsRefused()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var good = SealedVector(key);
        var nextCounter = (byte[])Nonce.Clone();
        // WireGuard puts its 64-bit counter little-endian after 4 zero bytes: the next message's nonce.
        BinaryPrimitives.WriteUInt64LittleEndian(nextCounter.AsSpan(4), BinaryPrimitives.ReadUInt64LittleEndian(nextCounter.AsSpan(4)) + 1);
        var otherNonce = (byte[])Nonce.Clone();
        otherNonce[0] ^= 0x80;

        Assert.False(key.TryOpen(nextCounter, Rfc8439Vector.AssociatedData, good, new byte[good.Length - 16]));
        Assert.False(key.TryOpen(otherNonce, Rfc8439Vector.AssociatedData, good, new byte[good.Length - 16]));
        Assert.False(key.TryOpen(Nonce, [], good, new byte[good.Length - 16]));
        using var otherKey = Aead.CreateKey(Enumerable.Repeat((byte)7, 32).ToArray());
        Assert.False(otherKey.TryOpen(Nonce, Rfc8439Vector.AssociatedData, good, new byte[good.Length - 16]));
    }

    [Fact]
    public void ShorterThanATag_IsRefused()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);

        Assert.False(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, new byte[15], []));
        Assert.False(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, [], []));
    }

    [Fact]
    public void EveryLength_RoundTrips_InPlaceAndApart_ToTheSameBytes()
    {
        using var key = Aead.CreateKey(Rfc8439Vector.Key);
        var random = new Random(3);
        foreach (var length in Lengths)
        {
            var plaintext = new byte[length];
            random.NextBytes(plaintext);
            var apart = new byte[length + 16];
            key.Seal(Nonce, Rfc8439Vector.AssociatedData, plaintext, apart);

            var inPlace = new byte[length + 16];
            plaintext.CopyTo(inPlace, 0);
            key.Seal(Nonce, Rfc8439Vector.AssociatedData, inPlace.AsSpan(0, length), inPlace);
            Assert.Equal(apart, inPlace);

            var opened = new byte[length];
            Assert.True(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, apart, opened), $"length {length} did not open apart");
            Assert.Equal(plaintext, opened);
            Assert.True(key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, inPlace, inPlace.AsSpan(0, length)), $"length {length} did not open in place");
            Assert.Equal(plaintext, inPlace[..length]);
        }
    }

    [Fact]
    public void DisposedKey_RefusesWithObjectDisposed()
    {
        var key = Aead.CreateKey(Rfc8439Vector.Key);
        var sealedText = SealedVector(key);
        key.Dispose();

        Assert.Throws<ObjectDisposedException>(() => key.Seal(Nonce, [], Rfc8439Vector.Plaintext, new byte[Rfc8439Vector.Plaintext.Length + 16]));
        Assert.Throws<ObjectDisposedException>(() => key.TryOpen(Nonce, Rfc8439Vector.AssociatedData, sealedText, new byte[sealedText.Length - 16]));
    }

    /// <summary><see cref="Rfc8439Vector"/>'s plaintext sealed under <paramref name="key"/> and <see cref="Nonce"/>.</summary>
    private protected byte[] SealedVector(IAeadKey key)
    {
        var output = new byte[Rfc8439Vector.Plaintext.Length + 16];
        key.Seal(Nonce, Rfc8439Vector.AssociatedData, Rfc8439Vector.Plaintext, output);
        return output;
    }
}
