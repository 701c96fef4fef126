using System.Buffers.Binary;
using CsCheck;
using Salvo.Internal;

namespace Salvo.Tests.Internal;

/// <summary>
/// The one Internet checksum (compiled into Salvo and Salvo.Tunnel) against RFC 1071's word-by-word definition: known
/// vectors, every length to 300 and random ones to 9,000 bytes at odd and even offsets, sums split across calls, and the
/// pseudo-header against the same sum written out as bytes.
/// </summary>
public sealed class InternetChecksumTests
{
    [Fact]
    public void Finish_Rfc1071Example_IsTheComplementOfDdf2()
    {
        // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2.
        var data = Convert.FromHexString("0001f203f4f5f6f7");

        Assert.Equal(0xddf2, InternetChecksum.Fold(InternetChecksum.Add(data)));
        Assert.Equal(0x220d, InternetChecksum.Finish(InternetChecksum.Add(data)));
    }

    [Fact]
    public void Finish_KnownIPv4Header_IsB861()
    {
        var header = Convert.FromHexString("450000730000400040110000c0a80001c0a800c7");

        Assert.Equal(0xb861, InternetChecksum.Finish(InternetChecksum.Add(header)));
    }

    [Fact]
    public void Finish_HeaderCarryingItsChecksum_IsZero()
    {
        var header = Convert.FromHexString("450000730000400040110000c0a80001c0a800c7");
        BinaryPrimitives.WriteUInt16BigEndian(header.AsSpan(10), InternetChecksum.Finish(InternetChecksum.Add(header)));

        Assert.Equal(0, InternetChecksum.Finish(InternetChecksum.Add(header)));
        Assert.Equal(0xFFFF, InternetChecksum.Fold(InternetChecksum.Add(header)));
    }

    [Fact]
    public void Add_EveryLengthTo300AndLongOnes_MatchesTheWordByWordSum()
    {
        var random = new Random(5);
        foreach (var length in Enumerable.Range(0, 301).Concat([1_399, 1_400, 1_401, 8_999, 9_000, 65_535]))
        {
            var data = new byte[length];
            random.NextBytes(data);

            Assert.Equal(WordByWord(data), InternetChecksum.Fold(InternetChecksum.Add(data)));
        }
    }

    [Fact]
    public void Add_RandomLengthsAndOffsets_MatchesTheWordByWordSum()
    {
        // An odd offset makes every vector and word load unaligned; the lengths cover the scalar tail after each vector width.
        Gen.Select(Gen.Int[0, 9_000], Gen.Int[0, 63], Gen.Int).Sample((length, offset, seed) =>
        {
            var buffer = new byte[offset + length];
            new Random(seed).NextBytes(buffer);
            var data = buffer.AsSpan(offset, length);

            return WordByWord(data) == InternetChecksum.Fold(InternetChecksum.Add(data));
        }, iter: 2_000);
    }

    [Fact]
    public void Add_SplitAtAnEvenPoint_MatchesOneCall()
    {
        Gen.Select(Gen.Int[0, 4_500], Gen.Int[0, 4_500], Gen.Int).Sample((halfFirst, halfSecond, seed) =>
        {
            var data = new byte[(2 * halfFirst) + (2 * halfSecond) + 1];
            new Random(seed).NextBytes(data);
            var split = 2 * halfFirst;

            var inTwo = InternetChecksum.Add(data.AsSpan(split), InternetChecksum.Add(data.AsSpan(0, split)));
            return InternetChecksum.Fold(inTwo) == InternetChecksum.Fold(InternetChecksum.Add(data));
        }, iter: 500);
    }

    [Fact]
    public void Add_AllOnes_FoldsTheCarriesBackIn()
    {
        var data = Enumerable.Repeat((byte)0xFF, 9_000).ToArray();

        Assert.Equal(0xFFFF, InternetChecksum.Fold(InternetChecksum.Add(data)));
    }

    [Fact]
    public void AddPseudoHeader_IPv6_IsTheSumOfTheHeaderWrittenOut()
    {
        var source = Convert.FromHexString("20010db8000000000000000000000001");
        var destination = Convert.FromHexString("20010db8ffffffffffffffffffffffff");
        // RFC 8200 section 8.1: source, destination, a 32-bit length, three zero bytes and the next header.
        var written = Convert.FromHexString("20010db8000000000000000000000001" + "20010db8ffffffffffffffffffffffff" + "0000fff0" + "00000011");

        var sum = InternetChecksum.AddPseudoHeader(source, destination, 17, 0xFFF0);

        Assert.Equal(WordByWord(written), InternetChecksum.Fold(sum));
    }

    /// <summary>RFC 1071 section 1 as written: 16-bit big-endian words, an odd last byte padded on the right, the carry folded at each step.</summary>
    private static ushort WordByWord(ReadOnlySpan<byte> data)
    {
        uint sum = 0;
        for (var i = 0; i < data.Length; i += 2)
        {
            sum += (uint)(data[i] << 8) + (i + 1 < data.Length ? data[i + 1] : 0u);
            sum = (sum & 0xFFFF) + (sum >> 16);
        }

        return (ushort)sum;
    }
}
