using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Salvo.Fuzzing;
using Salvo.Perf.Cli;
using Salvo.Perf.Reporting;
using Salvo.Perf.TestServer.Traffic;
using Xunit.Abstractions;

namespace Salvo.Perf.Tests.Fuzzing;

/// <summary>Fuzzes the control exchange of salvo client/server: the line parser, the hello checks, the line reader.</summary>
[Trait("Category", "Fuzz")]
public sealed class ControlLineFuzzTests(ITestOutputHelper output)
{
    internal const string Target = "control-line";

    [Fact]
    public void Parse_MutatedLines_ReturnsAUsableMessageOrThrowsInvalidData()
    {
        var corpus = FuzzCorpus.Load(Target);
        FuzzRunner.RunBytes(Target, corpus, NewMutator, defaultIterations: 20_000, fuzzCase =>
        {
            ControlMessage message;
            try
            {
                message = ControlChannel.Parse(fuzzCase.Input);
            }
            catch (InvalidDataException e)
            {
                Assert.False(string.IsNullOrWhiteSpace(e.Message));
                return;
            }

            Assert.False(string.IsNullOrEmpty(message.Type));
            CheckHello(message);

            // What the peer sent is printed and logged: that must work for anything the parser lets through.
            JsonSerializer.SerializeToUtf8Bytes(message, PerfJson.Compact.ControlMessage);
            using var text = new StringWriter();
            TrafficReports.PrintSummary(new CliConsole(text, text, isTerminal: false), message.Side);
        }, output);
    }

    [Fact]
    public void ReceiveAsync_MutatedStreamsAtRandomReads_YieldsEachLineOrOneClearRejection()
    {
        var corpus = FuzzCorpus.Load(Target);
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);

        FuzzRunner.RunBytes($"{Target}-stream", corpus, NewMutator, defaultIterations: 1_000, fuzzCase =>
        {
            var random = fuzzCase.Random;
            var lines = Enumerable.Range(0, 1 + random.Next(3)).Select(_ => NewMutator(random).Mutate(corpus[random.Next(corpus.Count)], corpus));
            var stream = (byte[])[.. fuzzCase.Input, (byte)'\n', .. lines.SelectMany(l => l.Append((byte)'\n'))];
            if (random.Next(4) == 0)
            {
                stream = stream[..random.Next(stream.Length)]; // the peer stops mid-line
            }

            var reads = new Mutator(random, stream.Length).SplitPoints(stream.Length);
            fuzzCase.Input = stream;
            fuzzCase.Note = $"reads end at {string.Join(',', reads)}";
            using var sender = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            sender.Connect(listener.LocalEndPoint!);
            using var channel = new ControlChannel(listener.Accept());
            var previous = 0;
            foreach (var end in reads.Append(stream.Length))
            {
                sender.Send(stream.AsSpan(previous, end - previous));
                previous = end;
            }

            sender.Shutdown(SocketShutdown.Send);
            foreach (var expected in Expected(stream))
            {
                var received = Receive(channel);
                Assert.Equal(expected, received);
                if (expected.StartsWith("rejected", StringComparison.Ordinal))
                {
                    break;
                }
            }
        }, output);
    }

    [Fact]
    public void Corpus_StoredSeeds_MatchTheEncoders()
    {
        var side = new SideReport("receiver", 1.5, 1000, 1_380_000, 7.36e6, 666.7, 3, 0.3, 1, 0, 2, 12.5, 4.2);
        var messages = new Dictionary<string, ControlMessage>
        {
            ["hello"] = new("hello", 1, 1380, 1_000_000, 0.5, 2, false),
            ["hello-reverse"] = new("hello", 1, 64, 0, 10, 2, true, [5201, 5202]),
            ["ready"] = new("ready", UdpPort: 5201),
            ["done"] = new("done", Sent: [500, 500]),
            ["done-reverse"] = new("done", Sent: [10], Side: side with { Role = "sender" }),
            ["result"] = new("result", Side: side),
            ["error"] = new("error", Reason: "parallel must be 1..128"),
        };

        Assert.Empty(FuzzCorpus.Check(Target, messages.ToDictionary(m => m.Key, m => JsonSerializer.SerializeToUtf8Bytes(m.Value, PerfJson.Compact.ControlMessage))));
    }

    [Fact]
    public void Corpus_RegressionInputs_AreRejectedWithAReason()
    {
        var files = FuzzCorpus.Files(Target, "regress-*").ToList();

        Assert.NotEmpty(files);
        Assert.All(files, file =>
        {
            var e = Assert.Throws<InvalidDataException>(() => ControlChannel.Parse(File.ReadAllBytes(file)));
            Assert.Contains("role", e.Message, StringComparison.Ordinal);
        });
    }

    internal static Func<Random, Mutator> NewMutator => random => new Mutator(
        random, maxLength: ControlChannel.MaxLineBytes + 64, interesting: [ControlChannel.MaxLineBytes],
        tokens: [.. "{}[]\":,\\.-+0e"u8, (byte)'\n', 0x00, 0xC3, 0xFF]);

    /// <summary>A hello that passes the checks is one the server can run: every field in range.</summary>
    internal static void CheckHello(ControlMessage message)
    {
        if (message.ValidateHello() is not null)
        {
            return;
        }

        Assert.Equal("hello", message.Type);
        Assert.Equal(ControlMessage.CurrentVersion, message.Version);
        Assert.InRange(message.LengthBytes!.Value, Protocol.PayloadHeader.Size, ValueParsers.MaxUdpPayload);
        Assert.True(message.BitsPerSecond >= 0);
        Assert.InRange(message.DurationSeconds!.Value, double.Epsilon, 86_400);
        Assert.InRange(message.Parallel!.Value, 1, ControlMessage.MaxParallel);
        if (message.Reverse == true)
        {
            Assert.Equal(message.Parallel, message.ClientPorts!.Length);
            Assert.All(message.ClientPorts, p => Assert.InRange(p, 1, 65_535));
        }
    }

    /// <summary>What a reader of <paramref name="stream"/> must see, call by call: a type, "rejected ..." or "end".</summary>
    private static IEnumerable<string> Expected(byte[] stream)
    {
        var rest = stream.AsMemory();
        while (true)
        {
            var newline = rest.Span.IndexOf((byte)'\n');
            if (newline < 0 ? rest.Length >= ControlChannel.MaxLineBytes : newline >= ControlChannel.MaxLineBytes)
            {
                yield return "rejected InvalidDataException";
                yield break;
            }

            if (newline < 0)
            {
                yield return "end";
                yield break;
            }

            yield return Describe(() => ControlChannel.Parse(rest.Span[..newline]));
            rest = rest[(newline + 1)..];
        }
    }

    private static string Receive(ControlChannel channel) =>
        Describe(() => channel.ReceiveAsync(TimeSpan.FromSeconds(30), CancellationToken.None).GetAwaiter().GetResult());

    private static string Describe(Func<ControlMessage> read)
    {
        try
        {
            return $"message {read().Type}";
        }
        catch (EndOfStreamException)
        {
            return "end";
        }
        catch (InvalidDataException e)
        {
            return $"rejected {e.GetType().Name}";
        }
    }
}
