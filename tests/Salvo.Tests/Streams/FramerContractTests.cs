using System.Buffers;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>What every framer must do, run once per framer by the subclasses below.</summary>
public abstract class FramerContractTests
{
    protected const int Limit = 1024;

    protected abstract IMessageFramer Create(int maxMessageSize = Limit);

    /// <summary>Payloads that stress both encodings: empty, delimiters, escapes, every byte value.</summary>
    public static TheoryData<string, byte[]> Payloads()
    {
        var random = new Random(1234);
        var noisy = new byte[300];
        random.NextBytes(noisy);
        for (var i = 0; i < noisy.Length; i += 7)
        {
            noisy[i] = (byte)(2 + (i % 3 == 2 ? 14 : i % 3)); // 0x02, 0x03 and 0x10 sprinkled in
        }

        return new TheoryData<string, byte[]>
        {
            { "empty", [] },
            { "stx", [0x02] },
            { "etx", [0x03] },
            { "dle", [0x10] },
            { "delimiters", [0x10, 0x02, 0x03, 0x10, 0x10, 0x22, 0x23, 0x30] },
            { "all byte values", Enumerable.Range(0, 256).Select(i => (byte)i).ToArray() },
            { "noisy", noisy },
        };
    }

    [Theory]
    [MemberData(nameof(Payloads))]
    public void Decode_StreamSplitAtEveryIndex_YieldsEveryMessage(string name, byte[] payload)
    {
        var framer = Create();
        byte[][] messages = [payload, [], payload.Reverse().ToArray(), [0x41]];
        var stream = EncodeAll(framer, messages);

        for (var cut = 0; cut <= stream.Length; cut++)
        {
            // First read: only the bytes before the cut; second read: all of it, in two segments.
            var decoded = new List<byte[]>();
            var consumed = DecodeAll(framer, Segments.Split(stream[..cut]), decoded);
            var rest = Segments.Split(stream, cut).Slice(consumed);
            consumed += DecodeAll(framer, rest, decoded);

            Assert.True(consumed == stream.Length, $"{name}: cut at {cut} consumed {consumed} of {stream.Length}");
            Assert.True(SameMessages(messages, decoded), $"{name}: cut at {cut} decoded other messages");
        }
    }

    [Theory]
    [MemberData(nameof(Payloads))]
    public void Decode_OneByteSegments_YieldsEveryMessage(string name, byte[] payload)
    {
        var framer = Create();
        byte[][] messages = [payload, payload, []];
        var decoded = new List<byte[]>();
        var stream = EncodeAll(framer, messages);

        var consumed = DecodeAll(framer, Segments.Bytewise(stream), decoded);

        Assert.True(consumed == stream.Length, name);
        Assert.Equal(messages, decoded);
    }

    [Theory]
    [MemberData(nameof(Payloads))]
    public void GetEncodedLength_AnyPayload_MatchesEncode(string name, byte[] payload)
    {
        var framer = Create();
        var output = new ArrayBufferWriter<byte>();
        framer.Encode(payload, output);
        Assert.True(framer.GetEncodedLength(payload) == output.WrittenCount, name);
        Assert.True(output.WrittenCount <= framer.MaxFrameSize, name);
    }

    /// <summary>Streams that end broken part-way, so that resuming must find the fault where a fresh scan does.</summary>
    public static TheoryData<string, byte[]> BrokenTails() => new()
    {
        { "stx inside a frame", [0x02, 0x41, 0x42, 0x10, 0x22, 0x43, 0x02, 0x44, 0x03] },
        { "bad escape", [0x02, 0x41, 0x42, 0x43, 0x10, 0x41, 0x03] },
        { "stray byte after a frame", [0x02, 0x41, 0x03, 0x7F] },
        { "length over the limit", [0, 0, 0, 3, 0x41, 0x42, 0x43, 0x7F, 0xFF, 0xFF, 0xFF] },
        { "no end within the message limit", [0x02, .. Enumerable.Repeat((byte)0x41, Limit + 1)] },
        { "escapes past the frame limit", [0x02, .. Enumerable.Repeat((byte)0x10, (2 * Limit) + 1)] },
        { "a whole message of escapes, then a stray byte", [0x02, .. Enumerable.Repeat((byte)0x10, 2 * Limit).Select((b, i) => i % 2 == 0 ? b : (byte)0x30), 0x03, 0x7F] },
    };

    [Theory]
    [MemberData(nameof(Payloads))]
    public void Decode_InputGrowingByteByByteWithAKeptScanState_AgreesWithAFreshDecode(string name, byte[] payload)
    {
        var framer = Create();
        var stream = EncodeAll(framer, [payload, [], payload.Reverse().ToArray(), [0x41]]);
        AssertResumingAgreesWithFresh(framer, stream, name);
    }

    [Theory]
    [MemberData(nameof(BrokenTails))]
    public void Decode_BrokenInputGrowingByteByByteWithAKeptScanState_AgreesWithAFreshDecode(string name, byte[] stream) =>
        AssertResumingAgreesWithFresh(Create(), stream, name);

    [Fact]
    public void Decode_MessageOfExactlyTheLimit_Completes()
    {
        var framer = Create();
        var payload = Enumerable.Repeat((byte)0x10, Limit).ToArray(); // worst case for escaping
        var decoded = new List<byte[]>();
        DecodeAll(framer, new ReadOnlySequence<byte>(EncodeAll(framer, [payload])), decoded);
        Assert.Equal(payload, Assert.Single(decoded));
    }

    [Fact]
    public void Encode_MessageOverTheLimit_ThrowsNamingTheLimit()
    {
        var framer = Create();
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => framer.Encode(new byte[Limit + 1], new ArrayBufferWriter<byte>()));
        Assert.Contains("MaxMessageSize", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Decode_Empty_NeedsMore()
    {
        var result = Create().TryDecode(ReadOnlySequence<byte>.Empty, new ArrayBufferWriter<byte>());
        Assert.Equal(FrameDecodeStatus.NeedMore, result.Status);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(MessageFramer.LargestMaxMessageSize + 1)]
    public void Create_MaxMessageSizeOutOfRange_Throws(int maxMessageSize)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => Create(maxMessageSize));
        Assert.Equal("maxMessageSize", e.ParamName);
    }

    private static bool SameMessages(byte[][] expected, List<byte[]> actual) =>
        expected.Length == actual.Count && expected.Zip(actual).All(pair => pair.First.AsSpan().SequenceEqual(pair.Second));

    protected static byte[] EncodeAll(IMessageFramer framer, IEnumerable<byte[]> messages)
    {
        var output = new ArrayBufferWriter<byte>();
        foreach (var message in messages)
        {
            framer.Encode(message, output);
        }

        return output.WrittenSpan.ToArray();
    }

    /// <summary>
    /// Feeds <paramref name="stream"/> one more byte at a time, as reads would, keeping one scan state, and checks
    /// every answer against a decode that starts from nothing.
    /// </summary>
    private static void AssertResumingAgreesWithFresh(IMessageFramer framer, byte[] stream, string name)
    {
        var state = default(FrameScanState);
        var start = 0;
        for (var end = start; end <= stream.Length; end++)
        {
            // Two segments, cut where the last call's input ended, as a pipe holds an earlier read and a new one.
            var input = Segments.Split(stream[start..end], Math.Max(0, end - start - 1));
            var resumed = framer.TryDecode(input, new ArrayBufferWriter<byte>(), ref state);
            var fresh = framer.TryDecode(input, new ArrayBufferWriter<byte>());

            Assert.True(resumed.Status == fresh.Status, $"{name}: bytes {start}..{end}: {resumed.Status}, fresh {fresh.Status}");
            Assert.True(resumed.Error == fresh.Error && resumed.Consumed == fresh.Consumed, $"{name}: bytes {start}..{end}");
            Assert.True(resumed.Message.ToArray().AsSpan().SequenceEqual(fresh.Message.ToArray()), $"{name}: bytes {start}..{end}");
            if (resumed.Status == FrameDecodeStatus.Malformed)
            {
                Assert.Equal(0, state.Examined);
                return;
            }

            if (resumed.Status == FrameDecodeStatus.Complete)
            {
                Assert.Equal(0, state.Examined);
                start += (int)resumed.Consumed;
                end = start - 1;
            }
        }
    }

    /// <summary>Decodes whole frames from the start of <paramref name="input"/>; returns the bytes they took.</summary>
    protected static long DecodeAll(IMessageFramer framer, ReadOnlySequence<byte> input, List<byte[]> decoded)
    {
        long consumed = 0;
        while (true)
        {
            var scratch = new ArrayBufferWriter<byte>();
            var result = framer.TryDecode(input.Slice(consumed), scratch);
            if (result.Status == FrameDecodeStatus.NeedMore)
            {
                return consumed;
            }

            Assert.True(result.Status == FrameDecodeStatus.Complete, result.Reason);
            decoded.Add(result.Message.ToArray());
            consumed += result.Consumed;
        }
    }
}

public sealed class LengthPrefixFramerTests : FramerContractTests
{
    protected override IMessageFramer Create(int maxMessageSize = Limit) => new LengthPrefixFramer(maxMessageSize);

    [Fact]
    public void Encode_ThreeBytes_WritesBigEndianLengthThenPayload()
    {
        Assert.Equal([0, 0, 0, 3, 0x61, 0x02, 0x63], EncodeAll(Create(), [[0x61, 0x02, 0x63]]));
    }

    [Fact]
    public void Decode_LengthOverLimit_MalformedFromTheHeaderAlone()
    {
        // 0x7FFFFFFF announced, nothing of it sent: reported at once, nothing buffered or allocated for it.
        var result = Create().TryDecode(new ReadOnlySequence<byte>([0x7F, 0xFF, 0xFF, 0xFF]), new ArrayBufferWriter<byte>());

        Assert.Equal(FrameDecodeStatus.Malformed, result.Status);
        Assert.Equal(FrameError.TooLarge, result.Error);
        Assert.Contains("2147483647", result.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Decode_PartialHeader_NeedsMore()
    {
        var result = Create().TryDecode(new ReadOnlySequence<byte>([0, 0, 1]), new ArrayBufferWriter<byte>());
        Assert.Equal(FrameDecodeStatus.NeedMore, result.Status);
    }
}

public sealed class DelimitedFramerTests : FramerContractTests
{
    protected override IMessageFramer Create(int maxMessageSize = Limit) => new DelimitedFramer(maxMessageSize);

    [Fact]
    public void Encode_Delimiters_EscapedWithDleAndXor20()
    {
        Assert.Equal([0x02, 0x10, 0x22, 0x10, 0x23, 0x10, 0x30, 0x41, 0x03], EncodeAll(Create(), [[0x02, 0x03, 0x10, 0x41]]));
    }

    [Theory]
    [InlineData(new byte[] { 0x41, 0x02, 0x03 }, FrameError.StrayByte)]
    [InlineData(new byte[] { 0x03 }, FrameError.StrayByte)]
    [InlineData(new byte[] { 0x02, 0x41, 0x02, 0x42, 0x03 }, FrameError.UnexpectedStart)]
    [InlineData(new byte[] { 0x02, 0x41, 0x02 }, FrameError.UnexpectedStart)]
    [InlineData(new byte[] { 0x02, 0x10, 0x41, 0x03 }, FrameError.BadEscape)]
    [InlineData(new byte[] { 0x02, 0x10, 0x03 }, FrameError.BadEscape)]
    [InlineData(new byte[] { 0x02, 0x10, 0x10, 0x03 }, FrameError.BadEscape)]
    public void Decode_BrokenEncoding_MalformedWithReason(byte[] input, FrameError error)
    {
        var result = Create().TryDecode(Segments.Bytewise(input), new ArrayBufferWriter<byte>());

        Assert.Equal(FrameDecodeStatus.Malformed, result.Status);
        Assert.Equal(error, result.Error);
        Assert.False(string.IsNullOrEmpty(result.Reason));
    }

    [Fact]
    public void Decode_NoEtxWithinTheLimit_MalformedBeforeTheLimitIsPassedByMuch()
    {
        var framer = Create();
        var input = new byte[Limit + 2];
        input[0] = DelimitedFramer.Stx;
        input.AsSpan(1).Fill(0x41);

        Assert.Equal(FrameDecodeStatus.NeedMore, framer.TryDecode(new ReadOnlySequence<byte>(input, 0, Limit + 1), new ArrayBufferWriter<byte>()).Status);
        var result = framer.TryDecode(new ReadOnlySequence<byte>(input), new ArrayBufferWriter<byte>());
        Assert.Equal(FrameError.TooLarge, result.Error);
    }

    [Fact]
    public void Decode_FrameArrivingInPieces_ExaminesOnlyTheNewBytes()
    {
        var framer = Create();
        var frame = EncodeAll(framer, [Enumerable.Repeat((byte)0x10, 300).ToArray()]); // 600 escaped bytes
        var state = default(FrameScanState);

        Assert.Equal(FrameDecodeStatus.NeedMore, framer.TryDecode(new ReadOnlySequence<byte>(frame, 0, 201), new ArrayBufferWriter<byte>(), ref state).Status);
        Assert.Equal(200, state.Examined);

        // The second read cuts an escape pair in two. Its copy of the examined part carries an ETX that was not
        // there: a framer that looked at those bytes again would end the frame on it.
        var altered = frame[..452];
        altered[100] = DelimitedFramer.Etx;
        Assert.Equal(FrameDecodeStatus.NeedMore, framer.TryDecode(new ReadOnlySequence<byte>(altered), new ArrayBufferWriter<byte>(), ref state).Status);
        Assert.Equal(451, state.Examined);

        var result = framer.TryDecode(new ReadOnlySequence<byte>(frame), new ArrayBufferWriter<byte>(), ref state);

        Assert.Equal(Enumerable.Repeat((byte)0x10, 300), result.Message.ToArray());
        Assert.Equal(0, state.Examined);
    }

    [Fact]
    public void Decode_ScanStateFromALongerInput_ScansAfreshInsteadOfTrustingIt()
    {
        var framer = Create();
        var state = default(FrameScanState);
        var longer = new byte[] { 0x02, 0x41, 0x41, 0x41, 0x41, 0x41 };
        framer.TryDecode(new ReadOnlySequence<byte>(longer), new ArrayBufferWriter<byte>(), ref state);

        // A caller that moved on to another frame without resetting: the state claims 5 examined bytes.
        var result = framer.TryDecode(new ReadOnlySequence<byte>([0x02, 0x42, 0x03]), new ArrayBufferWriter<byte>(), ref state);

        Assert.Equal([0x42], result.Message.ToArray());
    }

    [Fact]
    public void Decode_FrameWithoutEscapes_IsASliceOfTheInput()
    {
        var input = new byte[] { 0x02, 0x41, 0x42, 0x03 };
        var scratch = new ArrayBufferWriter<byte>();

        var result = Create().TryDecode(new ReadOnlySequence<byte>(input), scratch);

        Assert.Equal(0, scratch.WrittenCount);
        Assert.Equal([0x41, 0x42], result.Message.ToArray());
    }
}
