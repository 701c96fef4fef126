using System.Buffers.Binary;
using Salvo.Tunnel.Crypto;
using Salvo.Tunnel.Tests.Support;

namespace Salvo.Tunnel.Tests.Crypto;

/// <summary>
/// The multi-buffer ChaCha20-Poly1305 at the widest vector this CPU has (16 lanes with AVX-512, else 8): the single
/// calls keep the contract, and a batch seals and opens every packet, in place, to the bytes OpenSSL makes one packet
/// at a time, refuses forged ones without touching the others, and allocates nothing.
/// </summary>
public sealed class MultiBufferChaCha20Poly1305Tests : ChaCha20Poly1305ContractTests
{
    private const int TagSize = AeadPacket.TagSize;

    private protected override IAead Aead => Widest;

    private static MultiBufferChaCha20Poly1305 Widest =>
        MultiBufferChaCha20Poly1305.Widest ?? throw new InvalidOperationException("this CPU has neither AVX2 nor AVX-512");

    private static IAead OpenSsl =>
        PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("the platform offers no ChaCha20-Poly1305 (not Linux, or no libcrypto.so.3)");

    /// <summary>Every vector width this CPU runs, and batch sizes around it: full groups, a remainder, too few for a group.</summary>
    public static TheoryData<int, int> WidthsAndCounts()
    {
        var data = new TheoryData<int, int>();
        foreach (var cipher in new[] { MultiBufferChaCha20Poly1305.Widest, MultiBufferChaCha20Poly1305.EightLanes }.OfType<MultiBufferChaCha20Poly1305>().DistinctBy(c => c.Lanes))
        {
            foreach (var count in new[] { 1, 3, 4, cipher.Lanes - 1, cipher.Lanes, cipher.Lanes + 5, 2 * cipher.Lanes, 40 })
            {
                data.Add(cipher.Lanes, count);
            }
        }

        return data;
    }

    [Fact]
    public void Widest_OnThisCpu_UsesTheWidestVectorItHas() =>
        Assert.Equal(ChaCha20Lanes16.IsSupported ? 16 : 8, Widest.Lanes);

    [Theory]
    [MemberData(nameof(WidthsAndCounts))]
    public void SealBatch_MixedLengths_MatchesOpenSslPacketByPacket_AndOpens(int lanes, int count)
    {
        var random = new Random((lanes * 1_000) + count);
        var keyBytes = RandomBytes(random, 32);
        using var key = Cipher(lanes).CreateKey(keyBytes);
        using var reference = OpenSsl.CreateKey(keyBytes);
        var lengths = Enumerable.Range(0, count).Select(i => i % 5 == 0 ? 1_420 : random.Next(0, 1_600)).ToArray();
        var batch = Batch.Random(random, lengths, associatedData: true);
        var expected = batch.SealOneByOne(reference);

        key.SealBatch(batch.Buffer, batch.Packets, batch.Nonces);

        for (var i = 0; i < count; i++)
        {
            Assert.True(batch.Sealed(i).SequenceEqual(expected[i]), $"packet {i} of {count} ({lengths[i]} bytes) differs from OpenSSL's");
        }

        var opened = new bool[count];
        Assert.Equal(count, key.TryOpenBatch(batch.Buffer, batch.Packets, batch.Nonces, opened));
        Assert.All(opened, Assert.True);
        for (var i = 0; i < count; i++)
        {
            Assert.True(batch.Body(i).SequenceEqual(batch.Plaintexts[i]), $"packet {i} of {count} opened to other bytes");
        }
    }

    [Theory]
    [MemberData(nameof(WidthsAndCounts))]
    public void TryOpenBatch_OpenSslSeals_OpensAll_ForgedOnesRefusedAlone(int lanes, int count)
    {
        var random = new Random((lanes * 7_000) + count);
        var keyBytes = RandomBytes(random, 32);
        using var key = Cipher(lanes).CreateKey(keyBytes);
        using var reference = OpenSsl.CreateKey(keyBytes);
        var lengths = Enumerable.Range(0, count).Select(_ => random.Next(0, 1_500)).ToArray();
        var batch = Batch.Random(random, lengths, associatedData: true);
        var sealedByOpenSsl = batch.SealOneByOne(reference);
        for (var i = 0; i < count; i++)
        {
            sealedByOpenSsl[i].CopyTo(batch.Buffer, batch.Packets[i].Offset);
        }

        // Every third packet forged: a flipped bit in the tag, the body, or the associated data in turn.
        var forged = Enumerable.Range(0, count).Where(i => i % 3 == 1).ToHashSet();
        foreach (var i in forged)
        {
            var packet = batch.Packets[i];
            var where = (i / 3) % 3 == 0 || packet.Length == 0 ? packet.Offset + packet.Length + random.Next(TagSize)
                : (i / 3) % 3 == 1 ? packet.Offset + random.Next(packet.Length)
                : packet.AssociatedDataOffset + random.Next(packet.AssociatedDataLength);
            batch.Buffer[where] ^= (byte)(1 << random.Next(8));
        }

        var opened = new bool[count];
        var authentic = key.TryOpenBatch(batch.Buffer, batch.Packets, batch.Nonces, opened);

        Assert.Equal(count - forged.Count, authentic);
        for (var i = 0; i < count; i++)
        {
            Assert.Equal(!forged.Contains(i), opened[i]);
            if (opened[i])
            {
                Assert.True(batch.Body(i).SequenceEqual(batch.Plaintexts[i]), $"packet {i} of {count} opened to other bytes");
            }
        }
    }

    [Fact]
    public void SealBatch_AppendixA5InEveryLane_MatchesTheRfc()
    {
        using var key = Aead.CreateKey(Hex.Bytes(Rfc8439AppendixA5.Key));
        var plaintext = Hex.Bytes(Rfc8439AppendixA5.Plaintext);
        var associatedData = Hex.Bytes(Rfc8439AppendixA5.AssociatedData);
        var lanes = Widest.Lanes;
        var stride = associatedData.Length + plaintext.Length + TagSize;
        var buffer = new byte[lanes * stride];
        var packets = new AeadPacket[lanes];
        for (var i = 0; i < lanes; i++)
        {
            associatedData.CopyTo(buffer, i * stride);
            plaintext.CopyTo(buffer, (i * stride) + associatedData.Length);
            packets[i] = new AeadPacket((i * stride) + associatedData.Length, plaintext.Length, i * stride, associatedData.Length);
        }

        var nonces = Enumerable.Repeat(Hex.Bytes(Rfc8439AppendixA5.Nonce), lanes).SelectMany(n => n).ToArray();

        key.SealBatch(buffer, packets, nonces);

        for (var i = 0; i < lanes; i++)
        {
            Assert.Equal(Rfc8439AppendixA5.Ciphertext + Rfc8439AppendixA5.Tag, Hex.Of(buffer.AsSpan(packets[i].Offset, plaintext.Length + TagSize)));
        }
    }

    [Fact]
    public void SealBatch_EveryLengthTo65535_MatchesOpenSsl()
    {
        var random = new Random(65_535);
        var lanes = Widest.Lanes;
        var keyBytes = RandomBytes(random, 32);
        using var key = Aead.CreateKey(keyBytes);
        using var reference = OpenSsl.CreateKey(keyBytes);
        var pool = RandomBytes(random, 2 * 65_536);
        var stride = 65_535 + TagSize;
        var buffer = new byte[lanes * stride];
        var expected = new byte[stride];
        var packets = new AeadPacket[lanes];
        var nonces = new byte[lanes * 12];
        for (var first = 0; first < 65_536; first += lanes)
        {
            // Neighbouring lengths share a group, so every lane ends at another byte of its last block.
            var count = Math.Min(lanes, 65_536 - first);
            var starts = new int[count];
            random.NextBytes(nonces);
            for (var i = 0; i < count; i++)
            {
                packets[i] = new AeadPacket(i * stride, first + i);
                starts[i] = random.Next(0, 65_536);
                pool.AsSpan(starts[i], first + i).CopyTo(buffer.AsSpan(i * stride));
            }

            key.SealBatch(buffer, packets.AsSpan(0, count), nonces.AsSpan(0, count * 12));

            for (var i = 0; i < count; i++)
            {
                var length = first + i;
                reference.Seal(nonces.AsSpan(i * 12, 12), [], pool.AsSpan(starts[i], length), expected.AsSpan(0, length + TagSize));
                Assert.True(buffer.AsSpan(i * stride, length + TagSize).SequenceEqual(expected.AsSpan(0, length + TagSize)), $"length {length} sealed differently from OpenSSL");
            }
        }
    }

    [Fact]
    public void DefaultBatch_OfACipherWithoutOne_SealsAndOpensOneByOne()
    {
        var random = new Random(5);
        var keyBytes = RandomBytes(random, 32);
        using var key = OpenSsl.CreateKey(keyBytes);
        using var managed = Aead.CreateKey(keyBytes);
        var batch = Batch.Random(random, [0, 1, 64, 1_420, 77], associatedData: true);
        var expected = batch.SealOneByOne(managed);

        key.SealBatch(batch.Buffer, batch.Packets, batch.Nonces);

        for (var i = 0; i < expected.Length; i++)
        {
            Assert.True(batch.Sealed(i).SequenceEqual(expected[i]));
        }

        batch.Buffer[batch.Packets[2].Offset] ^= 1;
        var opened = new bool[expected.Length];
        Assert.Equal(expected.Length - 1, key.TryOpenBatch(batch.Buffer, batch.Packets, batch.Nonces, opened));
        Assert.Equal([true, true, false, true, true], opened);
    }

    [Fact]
    public void SealAndOpenBatch_Steady_AllocateNothing()
    {
        var random = new Random(9);
        using var key = Aead.CreateKey(RandomBytes(random, 32));
        var batch = Batch.Random(random, Enumerable.Repeat(1_420, Widest.Lanes).ToArray(), associatedData: false);
        var opened = new bool[Widest.Lanes];
        var counter = 0UL;

        var bytes = AllocationSlices.Measure(
            () =>
            {
                for (var i = 0; i < Widest.Lanes; i++)
                {
                    BinaryPrimitives.WriteUInt64LittleEndian(batch.Nonces.AsSpan((i * 12) + 4), ++counter);
                }

                key.SealBatch(batch.Buffer, batch.Packets, batch.Nonces);
                key.TryOpenBatch(batch.Buffer, batch.Packets, batch.Nonces, opened);
            },
            warmUp: 100,
            measured: 200,
            slices: 10);

        Assert.All(bytes, b => Assert.Equal(0, b));
        Assert.All(opened, Assert.True);
    }

    [Fact]
    public void Batch_OnADisposedKey_RefusesWithObjectDisposed()
    {
        var key = Aead.CreateKey(new byte[32]);
        key.Dispose();
        var buffer = new byte[64];

        Assert.Throws<ObjectDisposedException>(() => key.SealBatch(buffer, [new AeadPacket(0, 10)], new byte[12]));
        Assert.Throws<ObjectDisposedException>(() => key.TryOpenBatch(buffer, [new AeadPacket(0, 10)], new byte[12], new bool[1]));
    }

    [Fact]
    public void Batch_APacketOutsideTheBuffer_IsRefusedBeforeAnyWrite()
    {
        using var key = Aead.CreateKey(new byte[32]);
        var buffer = new byte[100];

        Assert.Throws<ArgumentOutOfRangeException>(() => key.SealBatch(buffer, [new AeadPacket(0, 10), new AeadPacket(90, 10)], new byte[24]));
        Assert.Equal(new byte[100], buffer);
    }

    private static MultiBufferChaCha20Poly1305 Cipher(int lanes) =>
        lanes == Widest.Lanes ? Widest : MultiBufferChaCha20Poly1305.EightLanes!;

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>
    /// Packets of the given lengths in one buffer with gaps between them, each after its own associated data (or none),
    /// with random nonces and plaintexts.
    /// </summary>
    private sealed class Batch
    {
        private Batch(byte[] buffer, AeadPacket[] packets, byte[] nonces, byte[][] plaintexts, byte[][] associatedData)
        {
            Buffer = buffer;
            Packets = packets;
            Nonces = nonces;
            Plaintexts = plaintexts;
            AssociatedData = associatedData;
        }

        public byte[] Buffer { get; }

        public AeadPacket[] Packets { get; }

        public byte[] Nonces { get; }

        public byte[][] Plaintexts { get; }

        public byte[][] AssociatedData { get; }

        public static Batch Random(Random random, int[] lengths, bool associatedData)
        {
            var packets = new AeadPacket[lengths.Length];
            var associated = new byte[lengths.Length][];
            var plaintexts = new byte[lengths.Length][];
            var offset = 0;
            for (var i = 0; i < lengths.Length; i++)
            {
                associated[i] = RandomBytes(random, associatedData ? random.Next(0, 33) : 0);
                plaintexts[i] = RandomBytes(random, lengths[i]);
                var gap = random.Next(0, 5);
                packets[i] = new AeadPacket(offset + gap + associated[i].Length, lengths[i], offset + gap, associated[i].Length);
                offset += gap + associated[i].Length + lengths[i] + TagSize;
            }

            var buffer = new byte[offset];
            for (var i = 0; i < lengths.Length; i++)
            {
                associated[i].CopyTo(buffer, packets[i].AssociatedDataOffset);
                plaintexts[i].CopyTo(buffer, packets[i].Offset);
            }

            return new Batch(buffer, packets, RandomBytes(random, 12 * lengths.Length), plaintexts, associated);
        }

        public Span<byte> Sealed(int i) => Buffer.AsSpan(Packets[i].Offset, Packets[i].Length + TagSize);

        public Span<byte> Body(int i) => Buffer.AsSpan(Packets[i].Offset, Packets[i].Length);

        public byte[][] SealOneByOne(IAeadKey key) =>
            [.. Enumerable.Range(0, Packets.Length).Select(i =>
            {
                var output = new byte[Plaintexts[i].Length + TagSize];
                key.Seal(Nonces.AsSpan(i * 12, 12), AssociatedData[i], Plaintexts[i], output);
                return output;
            })];
    }
}
