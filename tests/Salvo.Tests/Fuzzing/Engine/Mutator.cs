namespace Salvo.Fuzzing;

/// <summary>
/// Seeded, coverage-free mutations of byte strings: bit flips, byte sets, inserts and deletes, repeated runs,
/// copies within the input, splices with another corpus input, and "interesting" integers written over 1, 2, 4
/// or 8 bytes in either byte order, so that length fields meet 0, 1, the limit, the limit + 1, 0x7FFFFFFF and
/// 0xFFFFFFFF far more often than uniform random bytes would make them.
/// </summary>
internal sealed class Mutator
{
    private static readonly ulong[] CommonValues =
    [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
        0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, ulong.MaxValue,
    ];

    private readonly Random _random;
    private readonly ulong[] _values;
    private readonly byte[] _tokens;
    private readonly int _maxLength;

    /// <param name="random">The only source of randomness, so that one seed gives one sequence of inputs.</param>
    /// <param name="maxLength">Inputs are cut to this length; keeps each iteration small and fast.</param>
    /// <param name="interesting">Target-specific integers (its limits, limit + 1) added to the common ones.</param>
    /// <param name="tokens">Bytes that mean something to the target (delimiters, escapes, type codes, JSON punctuation).</param>
    public Mutator(Random random, int maxLength, IEnumerable<ulong>? interesting = null, byte[]? tokens = null)
    {
        _random = random;
        _maxLength = maxLength;
        _values = [.. CommonValues, .. interesting ?? []];
        _tokens = tokens is { Length: > 0 } ? tokens : [0x00, 0xFF];
    }

    /// <summary>Applies one to four stacked mutations to a copy of <paramref name="input"/>.</summary>
    public byte[] Mutate(byte[] input, IReadOnlyList<byte[]> corpus)
    {
        var data = new List<byte>(input);
        var count = 1 + _random.Next(4);
        for (var i = 0; i < count; i++)
        {
            MutateOnce(data, corpus);
        }

        if (data.Count > _maxLength)
        {
            data.RemoveRange(_maxLength, data.Count - _maxLength);
        }

        return [.. data];
    }

    /// <summary>Ascending offsets inside (0, <paramref name="length"/>) where a stream is cut into reads.</summary>
    public int[] SplitPoints(int length)
    {
        if (length < 2)
        {
            return [];
        }

        // Mostly a few reads, sometimes one byte per read: the worst case for a decoder that rescans.
        var count = _random.Next(8) == 0 ? length - 1 : _random.Next(Math.Min(8, length));
        return count == length - 1
            ? [.. Enumerable.Range(1, length - 1)]
            : [.. Enumerable.Range(0, count).Select(_ => 1 + _random.Next(length - 1)).Distinct().Order()];
    }

    private void MutateOnce(List<byte> data, IReadOnlyList<byte[]> corpus)
    {
        switch (_random.Next(11))
        {
            case 0 when data.Count > 0:
                data[_random.Next(data.Count)] ^= (byte)(1 << _random.Next(8));
                break;
            case 1 when data.Count > 0:
                data[_random.Next(data.Count)] = (byte)_random.Next(256);
                break;
            case 2 when data.Count > 0:
                data[_random.Next(data.Count)] = Token();
                break;
            case 3:
                data.InsertRange(Position(data), Enumerable.Range(0, 1 + _random.Next(8)).Select(_ => (byte)_random.Next(256)));
                break;
            case 4:
                data.Insert(Position(data), Token());
                break;
            case 5:
                // A long run of one byte: escapes without end, padding past a limit.
                data.InsertRange(Position(data), Enumerable.Repeat(Token(), 1 + _random.Next(Math.Max(1, _maxLength / 2))));
                break;
            case 6 when data.Count > 0:
                var start = _random.Next(data.Count);
                data.RemoveRange(start, 1 + _random.Next(Math.Min(16, data.Count - start)));
                break;
            case 7 when data.Count > 1:
                var from = _random.Next(data.Count);
                var chunk = data.GetRange(from, 1 + _random.Next(data.Count - from));
                data.InsertRange(Position(data), chunk);
                break;
            case 8 when corpus.Count > 0:
                var other = corpus[_random.Next(corpus.Count)];
                var keep = _random.Next(data.Count + 1);
                data.RemoveRange(keep, data.Count - keep);
                data.AddRange(other.Skip(_random.Next(other.Length + 1)));
                break;
            case 9 when data.Count > 0:
                var cut = _random.Next(data.Count);
                data.RemoveRange(cut, data.Count - cut);
                break;
            default:
                WriteInteresting(data);
                break;
        }
    }

    private void WriteInteresting(List<byte> data)
    {
        var width = 1 << _random.Next(4);
        var value = _values[_random.Next(_values.Length)];
        value = _random.Next(4) switch
        {
            0 => value - 1,
            1 => value + 1,
            _ => value,
        };
        var bytes = BitConverter.GetBytes(value).AsSpan(0, width).ToArray();
        if (_random.Next(2) == 0)
        {
            Array.Reverse(bytes); // big-endian (network order) as well as little-endian
        }

        while (data.Count < width)
        {
            data.Add(0);
        }

        var at = _random.Next(data.Count - width + 1);
        for (var i = 0; i < width; i++)
        {
            data[at + i] = bytes[i];
        }
    }

    private byte Token() => _tokens[_random.Next(_tokens.Length)];

    private int Position(List<byte> data) => _random.Next(data.Count + 1);
}
