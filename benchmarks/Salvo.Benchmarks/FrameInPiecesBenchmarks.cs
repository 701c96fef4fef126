using System.Buffers;
using BenchmarkDotNet.Attributes;
using Salvo.Streams;

namespace Salvo.Benchmarks;

/// <summary>
/// One STX/ETX frame arriving in 4 KiB reads, decoded after each read as a connection does: scanning afresh from
/// STX every time against resuming with a kept <see cref="FrameScanState"/>.
/// Run: dotnet run -c Release --project benchmarks/Salvo.Benchmarks -- --filter *FrameInPieces*
/// </summary>
[MemoryDiagnoser]
public class FrameInPiecesBenchmarks
{
    private const int ReadBytes = 4096; // one pool block, the most a connection's read takes
    private readonly ArrayBufferWriter<byte> _scratch = new();
    private DelimitedFramer _framer = null!;
    private byte[] _frame = [];

    [Params(64 * 1024, 1024 * 1024)]
    public int MessageBytes { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _framer = new DelimitedFramer(maxMessageSize: MessageBytes);
        var message = new byte[MessageBytes];
        new Random(7).NextBytes(message);
        var encoded = new ArrayBufferWriter<byte>();
        _framer.Encode(message, encoded);
        _frame = encoded.WrittenSpan.ToArray();
    }

    [Benchmark(Baseline = true, Description = "rescan from STX after each read")]
    public long Rescan()
    {
        var state = default(FrameScanState);
        return DecodeInPieces(ref state, keep: false);
    }

    [Benchmark(Description = "resume with FrameScanState")]
    public long Resume()
    {
        var state = default(FrameScanState);
        return DecodeInPieces(ref state, keep: true);
    }

    private long DecodeInPieces(ref FrameScanState state, bool keep)
    {
        for (var length = Math.Min(ReadBytes, _frame.Length); ; length = Math.Min(length + ReadBytes, _frame.Length))
        {
            _scratch.ResetWrittenCount();
            var input = new ReadOnlySequence<byte>(_frame, 0, length);
            var result = keep ? _framer.TryDecode(input, _scratch, ref state) : _framer.TryDecode(input, _scratch);
            if (result.Status != FrameDecodeStatus.NeedMore)
            {
                return result.Consumed;
            }
        }
    }
}
