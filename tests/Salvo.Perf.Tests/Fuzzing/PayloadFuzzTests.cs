using System.Buffers.Binary;
using Salvo.Fuzzing;
using Salvo.Perf.Protocol;
using Salvo.Perf.Rr;
using Xunit.Abstractions;

namespace Salvo.Perf.Tests.Fuzzing;

/// <summary>Fuzzes the test datagram header and the rr request, the two parsers the data path runs per datagram.</summary>
[Trait("Category", "Fuzz")]
[Collection(WholeProcessCollection.Name)]
public sealed class PayloadFuzzTests(ITestOutputHelper output)
{
    private const string Header = "payload-header";
    private const string Request = "rr-request";

    [Fact]
    public void TryRead_MutatedDatagrams_ClassifiesEachByTheFirstBrokenField()
    {
        var corpus = FuzzCorpus.Load(Header);
        FuzzRunner.RunBytes(Header, corpus, NewMutator, defaultIterations: 100_000, fuzzCase =>
        {
            var input = fuzzCase.Input;

            var error = PayloadHeader.TryRead(input, out var header);

            Assert.Equal(ExpectedError(input), error);
            if (error == HeaderError.None)
            {
                var written = new byte[PayloadHeader.Size];
                header.Write(written);
                Assert.Equal(input[..PayloadHeader.Size], written);
            }
            else
            {
                Assert.Equal(default, header);
            }
        }, output);
    }

    [Fact]
    public void TryReadRequest_MutatedDatagrams_ReturnsMinusOneOrAClampedLength()
    {
        var corpus = FuzzCorpus.Load(Request);
        var replies = new SendBatch(capacity: 1);
        RrWire.TryAnswer(corpus[0], LoopbackSource, replies, out _); // JIT before the allocation checks
        replies.Clear();

        FuzzRunner.RunBytes(Request, corpus, NewMutator, defaultIterations: 50_000, fuzzCase =>
        {
            var input = fuzzCase.Input;
            var valid = PayloadHeader.TryRead(input, out var header) == HeaderError.None && header.Kind == PayloadKind.Request && input.Length >= RrWire.MinRequest;
            var expected = valid
                ? Math.Clamp(BinaryPrimitives.ReadInt32BigEndian(input.AsSpan(PayloadHeader.Size)), RrWire.MinResponse, Salvo.Perf.Cli.ValueParsers.MaxUdpPayload)
                : -1;

            Assert.Equal(expected, RrWire.TryReadRequest(input, out _));

            // The answer is as long as asked (clamped), written into the batch's arena: nothing allocated for it.
            var (added, malformed, allocated) = Answer(input, replies);
            if (allocated != 0)
            {
                // The runtime rarely allocates on this thread mid-call (see FramerStreamModel); the input's own cost repeats.
                (added, malformed, allocated) = Answer(input, replies);
            }

            Assert.True(added);
            Assert.Equal(0, allocated);
            Assert.Equal(!valid, malformed);
            Assert.Equal(valid ? 1 : 0, replies.Count);
            if (valid)
            {
                var response = replies.GetPayload(0);
                Assert.Equal(expected, response.Length);
                Assert.Equal(HeaderError.None, PayloadHeader.TryRead(response, out var echoed));
                Assert.Equal(header with { Kind = PayloadKind.Response }, echoed);
            }
        }, output);
    }

    [Theory]
    [InlineData(0x7FFF_FFFF, 65_507)]
    [InlineData(unchecked((int)0xFFFF_FFFF), RrWire.MinResponse)]
    [InlineData(unchecked((int)0x8000_0000), RrWire.MinResponse)]
    [InlineData(0, RrWire.MinResponse)]
    [InlineData(65_508, 65_507)]
    public void TryReadRequest_ExtremeLengthField_IsClamped(int asked, int expected)
    {
        var request = new byte[RrWire.MinRequest];
        RrWire.WriteRequest(request, slot: 1, sequence: 2, timeNanoseconds: 3, asked);

        Assert.Equal(expected, RrWire.TryReadRequest(request, out _));
    }

    [Fact]
    public void Write_AnyHeader_ReadsBack()
    {
        FuzzRunner.Run($"{Header}-roundtrip", defaultIterations: 20_000, fuzzCase =>
        {
            var random = fuzzCase.Random;
            var header = new PayloadHeader((PayloadKind)random.Next(3), (ushort)random.Next(65_536), (ulong)random.NextInt64(), random.NextInt64(long.MinValue, long.MaxValue));
            var datagram = new byte[PayloadHeader.Size + random.Next(64)];
            random.NextBytes(datagram);
            header.Write(datagram);
            fuzzCase.Input = datagram;

            Assert.Equal(HeaderError.None, PayloadHeader.TryRead(datagram, out var read));
            Assert.Equal(header, read);
        }, output);
    }

    [Fact]
    public void Corpus_StoredSeeds_MatchTheEncoders()
    {
        var data = new byte[PayloadHeader.Size];
        new PayloadHeader(PayloadKind.Data, 3, 41, 1_000_000).Write(data);
        var response = new byte[64];
        new PayloadHeader(PayloadKind.Response, 65_535, ulong.MaxValue, -1).Write(response);
        var small = new byte[RrWire.MinRequest];
        RrWire.WriteRequest(small, 0, 0, 0, 64);
        var large = new byte[200];
        RrWire.WriteRequest(large, 7, 1 << 40, long.MaxValue, 65_507);

        Assert.Empty(FuzzCorpus.Check(Header, new Dictionary<string, byte[]> { ["data"] = data, ["response-padded"] = response, ["request"] = small }));
        Assert.Empty(FuzzCorpus.Check(Request, new Dictionary<string, byte[]> { ["small"] = small, ["largest"] = large }));
    }

    // A loopback requester gets the full asked-for length (elsewhere an answer is cut to the request's size).
    private static readonly DatagramAddress LoopbackSource = DatagramAddress.Create(System.Net.IPAddress.Loopback, 5000);

    private static (bool Added, bool Malformed, long Allocated) Answer(byte[] request, SendBatch replies)
    {
        replies.Clear();
        var before = GC.GetAllocatedBytesForCurrentThread();
        var added = RrWire.TryAnswer(request, LoopbackSource, replies, out var malformed);
        return (added, malformed, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    private static HeaderError ExpectedError(byte[] input) =>
        input.Length < PayloadHeader.Size ? HeaderError.TooShort
        : BinaryPrimitives.ReadUInt32BigEndian(input) != PayloadHeader.Magic ? HeaderError.BadMagic
        : input[4] != PayloadHeader.Version ? HeaderError.BadVersion
        : input[5] > 2 ? HeaderError.BadKind
        : HeaderError.None;

    private static Mutator NewMutator(Random random) => new(
        random, maxLength: 256, interesting: [PayloadHeader.Magic, PayloadHeader.Size, RrWire.MinRequest, 65_507, 65_508],
        tokens: [0x00, 0x01, 0x02, 0x03, 0x53, 0x4C, 0x56, 0x4F, 0xFF]);
}
