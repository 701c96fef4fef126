using System.Buffers.Binary;
using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks.MultiBuffer;

/// <summary>
/// ChaCha20-Poly1305 (RFC 8439) that seals or opens a batch of packets under one key at once: ChaCha20 runs sixteen
/// packets per AVX-512 vector (<see cref="ChaCha20Lanes16"/>) or eight per AVX2 vector (<see cref="ChaCha20Lanes8"/>),
/// picked once at start by what the CPU has, and Poly1305 runs per packet in 64-bit scalar code
/// (<see cref="Poly1305"/>). A group of lanes runs to its longest packet, so a batch of one length (a bulk transfer's
/// MTU-sized packets) wastes nothing. Single calls, batches of fewer than <see cref="MinimumLanes"/> packets, and CPUs
/// without the vectors take the scalar path (<see cref="ManagedChaCha20Poly1305"/>). Allocates nothing per call.
/// </summary>
internal sealed class MultiBufferChaCha20Poly1305 : IAead
{
    /// <summary>
    /// Fewest packets worth a vector group: below it the lanes would mostly compute keystream nobody reads, and a
    /// scalar block costs about what a lane group's does per used lane.
    /// </summary>
    public const int MinimumLanes = 4;

    private MultiBufferChaCha20Poly1305(int lanes) => Lanes = lanes;

    /// <summary>The widest vector this CPU has, or null where it has neither AVX-512 nor AVX2.</summary>
    public static MultiBufferChaCha20Poly1305? Widest { get; } =
        ChaCha20Lanes16.IsSupported ? new(ChaCha20Lanes16.Lanes) : ChaCha20Lanes8.IsSupported ? new(ChaCha20Lanes8.Lanes) : null;

    /// <summary>Eight lanes (AVX2), or null without it: a batch of eight on a CPU that also has sixteen.</summary>
    public static MultiBufferChaCha20Poly1305? EightLanes { get; } = ChaCha20Lanes8.IsSupported ? new(ChaCha20Lanes8.Lanes) : null;

    /// <summary>Packets one vector group seals: 16 (AVX-512) or 8 (AVX2).</summary>
    public int Lanes { get; }

    /// <inheritdoc />
    public int NonceSize => 12;

    /// <inheritdoc />
    public IAeadKey CreateKey(ReadOnlySpan<byte> key) => new Key(key, Lanes);

    /// <summary>A key with the batch calls as well as the single ones.</summary>
    public IBatchAeadKey CreateBatchKey(ReadOnlySpan<byte> key) => new Key(key, Lanes);

    private sealed class Key : IBatchAeadKey
    {
        private const int MaxLanes = ChaCha20Lanes16.Lanes;

        private readonly uint[] _key = new uint[8];
        private readonly int _lanes;
        private bool _disposed;

        public Key(ReadOnlySpan<byte> key, int lanes)
        {
            if (key.Length != 32)
            {
                throw new ArgumentException("ChaCha20-Poly1305 takes a 32-byte key.", nameof(key));
            }

            ChaCha20.ReadKey(key, _key);
            _lanes = lanes;
        }

        public void Seal(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> plaintext, Span<byte> ciphertext)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            ManagedChaCha20Poly1305.Seal(_key, nonce, associatedData, plaintext, ciphertext);
        }

        public bool TryOpen(ReadOnlySpan<byte> nonce, ReadOnlySpan<byte> associatedData, ReadOnlySpan<byte> ciphertext, Span<byte> plaintext)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return ManagedChaCha20Poly1305.TryOpen(_key, nonce, associatedData, ciphertext, plaintext);
        }

        public void SealBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            CheckBatch(buffer, packets, nonces);
            Span<byte> keystream = stackalloc byte[MaxLanes * ChaCha20.BlockSize];
            Span<byte> polyKeys = stackalloc byte[MaxLanes * Poly1305.KeySize];
            Span<uint> nonceColumns = stackalloc uint[3 * MaxLanes];
            var start = 0;
            while (start < packets.Length)
            {
                var group = Math.Min(_lanes, packets.Length - start);
                if (group < MinimumLanes)
                {
                    for (var i = start; i < packets.Length; i++)
                    {
                        var packet = packets[i];
                        ManagedChaCha20Poly1305.Seal(_key, nonces.Slice(i * 12, 12), AssociatedData(buffer, packet), buffer.Slice(packet.Offset, packet.Length), buffer.Slice(packet.Offset, packet.Length + AeadPacket.TagSize));
                    }

                    break;
                }

                var members = packets.Slice(start, group);
                FillNonceColumns(nonces.Slice(start * 12, group * 12), nonceColumns);
                OneTimeKeys(nonceColumns, members.Length, keystream, polyKeys);
                XorBodies(buffer, members, nonceColumns, keystream, MaxBlocks(members));
                for (var i = 0; i < members.Length; i++)
                {
                    var packet = members[i];
                    ManagedChaCha20Poly1305.ComputeTag(
                        polyKeys.Slice(i * Poly1305.KeySize, Poly1305.KeySize),
                        AssociatedData(buffer, packet),
                        buffer.Slice(packet.Offset, packet.Length),
                        buffer.Slice(packet.Offset + packet.Length, AeadPacket.TagSize));
                }

                start += group;
            }

            keystream.Clear();
            polyKeys.Clear();
        }

        public int TryOpenBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces, Span<bool> opened)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            CheckBatch(buffer, packets, nonces);
            if (opened.Length < packets.Length)
            {
                throw new ArgumentException("One result per packet.", nameof(opened));
            }

            Span<byte> keystream = stackalloc byte[MaxLanes * ChaCha20.BlockSize];
            Span<byte> polyKeys = stackalloc byte[MaxLanes * Poly1305.KeySize];
            Span<uint> nonceColumns = stackalloc uint[3 * MaxLanes];
            Span<AeadPacket> authentic = stackalloc AeadPacket[MaxLanes];
            var count = 0;
            var start = 0;
            while (start < packets.Length)
            {
                var group = Math.Min(_lanes, packets.Length - start);
                if (group < MinimumLanes)
                {
                    for (var i = start; i < packets.Length; i++)
                    {
                        var packet = packets[i];
                        opened[i] = ManagedChaCha20Poly1305.TryOpen(_key, nonces.Slice(i * 12, 12), AssociatedData(buffer, packet), buffer.Slice(packet.Offset, packet.Length + AeadPacket.TagSize), buffer.Slice(packet.Offset, packet.Length));
                        count += opened[i] ? 1 : 0;
                    }

                    break;
                }

                var members = packets.Slice(start, group);
                FillNonceColumns(nonces.Slice(start * 12, group * 12), nonceColumns);
                OneTimeKeys(nonceColumns, members.Length, keystream, polyKeys);
                for (var i = 0; i < members.Length; i++)
                {
                    var packet = members[i];
                    var good = ManagedChaCha20Poly1305.TagMatches(
                        polyKeys.Slice(i * Poly1305.KeySize, Poly1305.KeySize),
                        AssociatedData(buffer, packet),
                        buffer.Slice(packet.Offset, packet.Length),
                        buffer.Slice(packet.Offset + packet.Length, AeadPacket.TagSize));
                    opened[start + i] = good;
                    count += good ? 1 : 0;
                    // A forged packet's lane still runs with the rest, but reads and writes nothing.
                    authentic[i] = good ? packet : packet with { Length = 0 };
                }

                XorBodies(buffer, authentic[..group], nonceColumns, keystream, MaxBlocks(authentic[..group]));
                start += group;
            }

            keystream.Clear();
            polyKeys.Clear();
            return count;
        }

        public void Dispose()
        {
            _disposed = true;
            CryptographicOperations.ZeroMemory(System.Runtime.InteropServices.MemoryMarshal.AsBytes(_key.AsSpan()));
        }

        private static ReadOnlySpan<byte> AssociatedData(Span<byte> buffer, AeadPacket packet) =>
            buffer.Slice(packet.AssociatedDataOffset, packet.AssociatedDataLength);

        private static void CheckBatch(Span<byte> buffer, ReadOnlySpan<AeadPacket> packets, ReadOnlySpan<byte> nonces)
        {
            if (nonces.Length != packets.Length * 12)
            {
                throw new ArgumentException("One 12-byte nonce per packet.", nameof(nonces));
            }

            foreach (var packet in packets)
            {
                if (packet.Offset < 0 || packet.Length < 0 || (long)packet.Offset + packet.Length + AeadPacket.TagSize > buffer.Length ||
                    packet.AssociatedDataOffset < 0 || packet.AssociatedDataLength < 0 || (long)packet.AssociatedDataOffset + packet.AssociatedDataLength > buffer.Length)
                {
                    throw new ArgumentOutOfRangeException(nameof(packets), "A packet lies outside the batch's buffer.");
                }
            }
        }

        private static int MaxBlocks(ReadOnlySpan<AeadPacket> members)
        {
            var longest = 0;
            foreach (var packet in members)
            {
                longest = Math.Max(longest, packet.Length);
            }

            return (longest + ChaCha20.BlockSize - 1) / ChaCha20.BlockSize;
        }

        /// <summary>Lays the nonces out word-major, one column per lane; lanes past the group get nonce zero and are never read.</summary>
        private void FillNonceColumns(ReadOnlySpan<byte> nonces, Span<uint> columns)
        {
            columns.Clear();
            var count = nonces.Length / 12;
            for (var i = 0; i < count; i++)
            {
                columns[i] = BinaryPrimitives.ReadUInt32LittleEndian(nonces[(i * 12)..]);
                columns[_lanes + i] = BinaryPrimitives.ReadUInt32LittleEndian(nonces[((i * 12) + 4)..]);
                columns[(2 * _lanes) + i] = BinaryPrimitives.ReadUInt32LittleEndian(nonces[((i * 12) + 8)..]);
            }
        }

        /// <summary>Block 0 of each lane: its first 32 bytes are the packet's Poly1305 key (RFC 8439 section 2.6).</summary>
        private void OneTimeKeys(Span<uint> nonceColumns, int members, Span<byte> keystream, Span<byte> polyKeys)
        {
            LaneBlock(nonceColumns, 0, keystream);
            for (var i = 0; i < members; i++)
            {
                keystream.Slice(i * ChaCha20.BlockSize, Poly1305.KeySize).CopyTo(polyKeys[(i * Poly1305.KeySize)..]);
            }
        }

        /// <summary>XORs blocks 1 on of each lane's keystream into its packet's body, in place.</summary>
        private void XorBodies(Span<byte> buffer, ReadOnlySpan<AeadPacket> members, Span<uint> nonceColumns, Span<byte> keystream, int blocks)
        {
            for (var block = 0; block < blocks; block++)
            {
                LaneBlock(nonceColumns, (uint)(block + 1), keystream);
                var done = block * ChaCha20.BlockSize;
                for (var i = 0; i < members.Length; i++)
                {
                    var packet = members[i];
                    var length = Math.Min(ChaCha20.BlockSize, packet.Length - done);
                    if (length > 0)
                    {
                        var body = buffer.Slice(packet.Offset + done, length);
                        Bytes.Xor(body, keystream.Slice(i * ChaCha20.BlockSize, length), body);
                    }
                }
            }
        }

        private void LaneBlock(Span<uint> nonceColumns, uint counter, Span<byte> keystream)
        {
            if (_lanes == ChaCha20Lanes16.Lanes)
            {
                ChaCha20Lanes16.Block(_key, nonceColumns, counter, keystream);
            }
            else
            {
                ChaCha20Lanes8.Block(_key, nonceColumns, counter, keystream);
            }
        }
    }
}
