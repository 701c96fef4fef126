using System.Buffers;

namespace Salvo.Tests.Streams;

/// <summary>Builds multi-segment sequences, as a pipe hands them out when a frame spans reads.</summary>
internal static class Segments
{
    /// <summary>A sequence of <paramref name="data"/> cut at each of <paramref name="cuts"/> (ascending offsets).</summary>
    public static ReadOnlySequence<byte> Split(byte[] data, params int[] cuts)
    {
        var bounds = cuts.Where(c => c > 0 && c < data.Length).Distinct().Order().Append(data.Length).ToArray();
        var first = new Segment(data.AsMemory(0, bounds[0]), 0);
        var last = first;
        for (var i = 1; i < bounds.Length; i++)
        {
            last = last.Append(data.AsMemory(bounds[i - 1], bounds[i] - bounds[i - 1]));
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    /// <summary>Every byte in a segment of its own.</summary>
    public static ReadOnlySequence<byte> Bytewise(byte[] data) => Split(data, Enumerable.Range(1, Math.Max(0, data.Length - 1)).ToArray());

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
