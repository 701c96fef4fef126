using Salvo.Tunnel.Offload;

namespace Salvo.Tunnel.Tests.Offload;

/// <summary>The vectorized sum against RFC 1071 word by word, over every length from 0 to 300 and a few long ones (odd ones included).</summary>
public sealed class InternetChecksumTests
{
    [Fact]
    public void Add_EveryLength_MatchesTheWordByWordSum()
    {
        var random = new Random(5);
        foreach (var length in Enumerable.Range(0, 301).Concat([1_399, 1_400, 1_401, 65_535]))
        {
            var data = new byte[length];
            random.NextBytes(data);

            Assert.Equal(WordByWord(data), InternetChecksum.Fold(InternetChecksum.Add(data, 0)));
        }
    }

    [Fact]
    public void Add_AllOnes_FoldsTheCarriesBackIn()
    {
        var data = Enumerable.Repeat((byte)0xFF, 4_096).ToArray();

        Assert.Equal(0xFFFF, InternetChecksum.Fold(InternetChecksum.Add(data, 0)));
    }

    private static ushort WordByWord(byte[] data)
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
