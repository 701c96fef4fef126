using System.Buffers;
using Salvo.Fuzzing;
using Salvo.Streams;
using Xunit.Abstractions;

namespace Salvo.Tests.Fuzzing;

/// <summary>Fuzzes both stream framers: mutated streams, valid streams at random read boundaries, claimed lengths.</summary>
[Trait("Category", "Fuzz")]
public sealed class FramerFuzzTests(ITestOutputHelper output)
{
    /// <summary>Small, so that fuzzed inputs cross the limit often; 1 makes every non-empty message one byte.</summary>
    private const int Limit = 64;

    private const int MaxInput = 8 * Limit;

    public static TheoryData<string> Framers() => ["length-prefix", "delimited"];

    [Theory]
    [MemberData(nameof(Framers))]
    public void TryDecode_MutatedStreamsAtRandomReads_KeepsTheFramerContract(string name)
    {
        var corpus = FuzzCorpus.Load(name);
        Warm(name, corpus);

        FuzzRunner.RunBytes(name, corpus, MutatorFor(name), defaultIterations: 20_000, fuzzCase =>
        {
            var framer = Create(name, fuzzCase.Random.Next(8) == 0 ? 1 : Limit);
            var reads = new Mutator(fuzzCase.Random, MaxInput).SplitPoints(fuzzCase.Input.Length);
            fuzzCase.Note = $"MaxMessageSize {framer.MaxMessageSize}; reads end at {string.Join(',', reads)}";

            var split = FramerStreamModel.Feed(framer, fuzzCase.Input, reads);
            var whole = FramerStreamModel.Feed(framer, fuzzCase.Input, []);

            // Where the reads fall must not change what is decoded (the error kind may: a frame can be found too
            // large before the STX or bad escape that a whole read sees first).
            Assert.Equal(whole.Messages, split.Messages);
            Assert.Equal(whole.Error == FrameError.None, split.Error == FrameError.None);
        }, output);
    }

    [Theory]
    [MemberData(nameof(Framers))]
    public void TryDecode_ValidStreamsAtRandomReads_RoundTrip(string name)
    {
        FuzzRunner.Run($"{name}-roundtrip", defaultIterations: 2_000, fuzzCase =>
        {
            var random = fuzzCase.Random;
            var framer = Create(name, Limit);
            var messages = Enumerable.Range(0, 1 + random.Next(6)).Select(_ => RandomMessage(random)).ToList();
            var stream = FramerStreamModel.Encode(framer, messages);
            var reads = new Mutator(random, MaxInput).SplitPoints(stream.Length);
            fuzzCase.Input = stream;
            fuzzCase.Note = $"reads end at {string.Join(',', reads)}";

            var outcome = FramerStreamModel.Feed(framer, stream, reads);

            Assert.Equal(FrameError.None, outcome.Error);
            Assert.Equal(0, outcome.Leftover);
            Assert.Equal(messages, outcome.Messages);
            Assert.Equal(stream.Length, messages.Sum(m => framer.GetEncodedLength(m)));
        }, output);
    }

    [Theory]
    [InlineData("length-prefix", new byte[] { 0x10, 0x00, 0x00, 0x00, 0x41, 0x42 })] // 256 MiB announced (the largest limit), 2 sent
    [InlineData("length-prefix", new byte[] { 0x0F, 0xFF, 0xFF, 0xFF, 0x41 })]
    [InlineData("length-prefix", new byte[] { 0x7F, 0xFF, 0xFF, 0xFF })]
    [InlineData("length-prefix", new byte[] { 0xFF, 0xFF, 0xFF, 0xFF, 0x41 })]
    [InlineData("length-prefix", new byte[] { 0x10, 0x00, 0x00, 0x01 })] // the largest limit + 1
    [InlineData("delimited", new byte[] { 0x02, 0x41, 0x10, 0x22 })]
    [InlineData("delimited", new byte[] { 0x02, 0x10, 0x10, 0x10, 0x10 })]
    public void TryDecode_LengthClaimedButNotSent_AllocatesNothingInProportion(string name, byte[] input)
    {
        var framer = Create(name, MessageFramer.LargestMaxMessageSize);
        var scratch = new ArrayBufferWriter<byte>(1);
        framer.TryDecode(new ReadOnlySequence<byte>(input), scratch); // first call: JIT and type initialisation

        var before = GC.GetAllocatedBytesForCurrentThread();
        var result = framer.TryDecode(new ReadOnlySequence<byte>(input), scratch);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.NotEqual(FrameDecodeStatus.Complete, result.Status);
        Assert.True(allocated < 1024, $"{allocated} bytes allocated for a {input.Length}-byte input ({result.Status}: {result.Reason})");
        Assert.Equal(1, scratch.Capacity);
    }

    [Theory]
    [MemberData(nameof(Framers))]
    public void Corpus_StoredSeeds_MatchTheEncoders(string name)
    {
        var framer = Create(name, Limit);
        var seeds = SeedMessages().ToDictionary(s => s.Key, s => FramerStreamModel.Encode(framer, s.Value));

        Assert.Empty(FuzzCorpus.Check(name, seeds));
    }

    [Theory]
    [MemberData(nameof(Framers))]
    public void Corpus_RegressionInputs_EndMalformedWithinOneFrame(string name)
    {
        foreach (var file in FuzzCorpus.Files(name, "regress-*"))
        {
            var input = File.ReadAllBytes(file);
            var framer = Create(name, Limit);

            var outcome = FramerStreamModel.Feed(framer, input, [.. Enumerable.Range(1, input.Length - 1)]);

            Assert.True(outcome.Error != FrameError.None, $"{Path.GetFileName(file)} was not reported malformed");
        }
    }

    internal static IMessageFramer Create(string name, int limit) =>
        name == "delimited" ? new DelimitedFramer(limit) : new LengthPrefixFramer(limit);

    /// <summary>Seeds: each framer's encoding of the same messages, chosen to reach every branch of both decoders.</summary>
    private static Dictionary<string, byte[][]> SeedMessages() => new()
    {
        ["empty"] = [[]],
        ["text"] = [[.. "hello"u8]],
        ["delimiters"] = [[0x02, 0x03, 0x10, 0x41, 0x10]],
        ["limit-of-dle"] = [Enumerable.Repeat((byte)0x10, Limit).ToArray()],
        ["limit-of-text"] = [Enumerable.Repeat((byte)0x41, Limit).ToArray()],
        ["three-frames"] = [[0x01], [], [.. Enumerable.Range(0, Limit).Select(i => (byte)i)]],
    };

    private static Func<Random, Mutator> MutatorFor(string name) => random => new Mutator(
        random, MaxInput, interesting: [Limit - 1, Limit, Limit + 1, 2 * Limit + 2, MessageFramer.LargestMaxMessageSize + 1L],
        tokens: name == "delimited" ? [DelimitedFramer.Stx, DelimitedFramer.Etx, DelimitedFramer.Dle, 0x22, 0x23, 0x30] : [0x00, 0x40, 0x41, 0xFF]);

    private static byte[] RandomMessage(Random random)
    {
        var length = random.Next(4) switch
        {
            0 => 0,
            1 => Limit,
            _ => random.Next(Limit + 1),
        };
        var message = new byte[length];
        random.NextBytes(message);
        for (var i = 0; i < length; i++)
        {
            if (random.Next(4) == 0)
            {
                message[i] = random.Next(3) switch { 0 => DelimitedFramer.Stx, 1 => DelimitedFramer.Etx, _ => DelimitedFramer.Dle };
            }
        }

        return message;
    }

    /// <summary>Runs every decoder path once first, so that the allocation checks see no JIT or type initialisation.</summary>
    private static void Warm(string name, IReadOnlyList<byte[]> corpus)
    {
        foreach (var input in corpus.Append([0xFF, 0xFF, 0xFF, 0xFF]).Append([0x41]).Append([0x02, 0x10, 0x41, 0x03]).Append([0x02, 0x02]))
        {
            try
            {
                FramerStreamModel.Feed(Create(name, Limit), input, []);
            }
            catch (Xunit.Sdk.XunitException)
            {
                // Only warming; the fuzz run reports failures with their input.
            }
        }
    }
}
