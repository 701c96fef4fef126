using System.Buffers;
using BenchmarkDotNet.Attributes;
using Salvo.Streams;

namespace Salvo.Benchmarks;

/// <summary>
/// The hostile case for an end-of-frame search: a peer that sends a 64 KiB STX/ETX frame (no escapes) one byte per
/// read, decoded after every byte. Run: dotnet run -c Release --project benchmarks/Salvo.Benchmarks -- --filter *FrameTrickle*
/// </summary>
[MemoryDiagnoser]
public class FrameTrickleBenchmarks
{
    private readonly DelimitedFramer _framer = new();
    private readonly ArrayBufferWriter<byte> _scratch = new();
    private byte[] _frame = [];

    [GlobalSetup]
    public void Setup()
    {
        var encoded = new ArrayBufferWriter<byte>();
        _framer.Encode(Enumerable.Repeat((byte)0x41, MessageFramer.DefaultMaxMessageSize).ToArray(), encoded);
        _frame = encoded.WrittenSpan.ToArray();
    }

    [Benchmark(Baseline = true, Description = "64 KiB, 1 byte per read, rescanning")]
    public long Rescan()
    {
        var state = default(FrameScanState);
        return Trickle(ref state, keep: false);
    }

    [Benchmark(Description = "64 KiB, 1 byte per read, resuming")]
    public long Resume()
    {
        var state = default(FrameScanState);
        return Trickle(ref state, keep: true);
    }

    private long Trickle(ref FrameScanState state, bool keep)
    {
        for (var length = 1; ; length++)
        {
            var input = new ReadOnlySequence<byte>(_frame, 0, length);
            var result = keep ? _framer.TryDecode(input, _scratch, ref state) : _framer.TryDecode(input, _scratch);
            if (result.Status != FrameDecodeStatus.NeedMore)
            {
                return result.Consumed;
            }
        }
    }
}
