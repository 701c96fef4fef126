using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using Salvo.Fuzzing;
using Salvo.Perf.Cli;
using Salvo.Perf.TestServer.Traffic;
using Xunit.Abstractions;

namespace Salvo.Perf.Tests.Fuzzing;

/// <summary>
/// Runs <c>salvo server</c> in-process on loopback and sends it mutated control lines at each step of a test:
/// the hello, the forward test's done, the reverse test's result. Every bad line must be rejected with a logged
/// reason, and the server must answer the next client.
/// </summary>
[Trait("Category", "Fuzz")]
[Collection(WholeProcessCollection.Name)]
public sealed partial class ServerLoopFuzzTests(ITestOutputHelper output)
{
    private const string Rejected = "salvo server: rejected";
    private const string Iperf3Ended = @"salvo server: iperf3 client \S+: test ended";
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Server_MutatedControlLines_RejectsEachWithAReasonAndKeepsServing()
    {
        var corpus = FuzzCorpus.Load(ControlLineFuzzTests.Target);
        var done = File.ReadAllBytes(FuzzCorpus.Files(ControlLineFuzzTests.Target, "seed-done.bin").Single());
        var result = File.ReadAllBytes(FuzzCorpus.Files(ControlLineFuzzTests.Target, "seed-result.bin").Single());
        var regressions = FuzzCorpus.Files(ControlLineFuzzTests.Target, "regress-result-*").Select(File.ReadAllBytes).ToList();
        var notes = new LockedWriter();
        var lines = new LockedWriter();
        using var stop = new CancellationTokenSource();
        var (server, port) = await StartAsync(new CliConsole(lines, notes, isTerminal: false), stop.Token);
        using var absorber = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        absorber.Bind(new IPEndPoint(IPAddress.Loopback, 0)); // where a reverse test's datagrams go
        var absorberPort = ((IPEndPoint)absorber.LocalEndPoint!).Port;
        var rejections = 0;
        var iperf3Endings = 0;

        FuzzRunner.Run("control-server", defaultIterations: 300, fuzzCase =>
        {
            var random = fuzzCase.Random;
            var mutator = new ControlLineMutator(random, ControlLineFuzzTests.NewMutator(random));
            using var client = Connect(port);
            // First the stored results that once broke the server, as they are; then mutations at every step.
            var replay = fuzzCase.Iteration < regressions.Count;
            var step = replay ? 9 : random.Next(10);
            var line = replay
                ? regressions[(int)fuzzCase.Iteration]
                : FirstLine(mutator.Mutate(step switch { < 6 => corpus[random.Next(corpus.Count)], < 8 => done, _ => result }, corpus));
            fuzzCase.Input = line;
            if (step < 6)
            {
                fuzzCase.Note = "sent as the hello";
                var hello = Classify(line);
                if (hello is ControlMessage { Reverse: true } && hello.ValidateHello() is null)
                {
                    // A reverse test would send for up to a day: the last step covers reverse with its own hello. The
                    // server logs this connection, closed without a line, as rejected.
                    rejections++;
                    return;
                }

                if (line.Length > 0 && Salvo.Perf.TestServer.Iperf3.Iperf3Cookie.CanStart(line[0]))
                {
                    // A first byte that can start an iperf3 cookie makes the server take the connection for iperf3's,
                    // which has no way to answer a bad cookie: it logs the end and closes.
                    fuzzCase.Note = "sent as the hello; taken for an iperf3 cookie";
                    Send(client, line);
                    client.Shutdown(SocketShutdown.Send);
                    iperf3Endings++;
                    Assert.Empty(ReadToEnd(client));
                    return;
                }

                Send(client, line);
                if (hello is null || hello.ValidateHello() is not null)
                {
                    // A line that does not parse is answered too, with the reason the client prints.
                    rejections++;
                    var reply = Assert.Single(ReadToEnd(client));
                    Assert.Equal("error", reply.Type);
                    Assert.False(string.IsNullOrWhiteSpace(reply.Reason));
                }
                else
                {
                    Assert.Equal("ready", ReadLine(client)?.Type);
                    Send(client, "{\"type\":\"done\",\"sent\":[0]}"u8.ToArray());
                    Assert.Equal("result", Assert.Single(ReadToEnd(client)).Type);
                }
            }
            else if (step < 8)
            {
                fuzzCase.Note = "sent as the done of a forward test";
                Send(client, "{\"type\":\"hello\",\"version\":1,\"lengthBytes\":64,\"bitsPerSecond\":0,\"durationSeconds\":1,\"parallel\":1}"u8.ToArray());
                Assert.Equal("ready", ReadLine(client)?.Type);
                Send(client, line);
                var message = Classify(line);
                var accepted = message is { Type: "done", Sent.Length: <= ControlMessage.MaxParallel };
                rejections += accepted ? 0 : 1;
                Assert.Equal(accepted ? 1 : 0, ReadToEnd(client).Count);
            }
            else
            {
                fuzzCase.Note = "sent as the result of a reverse test";
                Send(client, Encoding.UTF8.GetBytes(
                    $"{{\"type\":\"hello\",\"version\":1,\"lengthBytes\":64,\"bitsPerSecond\":100000,\"durationSeconds\":0.02,\"parallel\":1,\"reverse\":true,\"clientPorts\":[{absorberPort}]}}"));
                Assert.Equal("ready", ReadLine(client)?.Type);
                Assert.Equal("done", ReadLine(client)?.Type);
                Send(client, line);
                rejections += Classify(line) is null ? 1 : 0;
                Assert.Empty(ReadToEnd(client));
            }

            // The server still serves: a probe is refused with a reason (and counted as one more rejection).
            using var probe = ConnectOrExplain(port, server);
            Send(probe, "{\"type\":\"probe\"}"u8.ToArray());
            Assert.Contains("expected a hello", ReadLine(probe)?.Reason, StringComparison.Ordinal);
            ReadToEnd(probe);
            rejections++;
            // Each connection is taken through its hello on its own task: one closed without a line is logged as
            // soon as its end is read, which may come after the next connection's answer.
            var deadline = DateTime.UtcNow + Patience;
            while ((Regex.Count(notes.Text, Regex.Escape(Rejected)) < rejections || Regex.Count(notes.Text, Iperf3Ended) < iperf3Endings) && DateTime.UtcNow < deadline)
            {
                Thread.Sleep(10);
            }

            var logged = notes.Text;
            Assert.True(rejections == Regex.Count(logged, Regex.Escape(Rejected)), $"expected {rejections} rejections logged; the last notes:{Environment.NewLine}{logged[^Math.Min(logged.Length, 600)..]}");
            Assert.True(iperf3Endings == Regex.Count(logged, Iperf3Ended), $"expected {iperf3Endings} iperf3 endings logged; the last notes:{Environment.NewLine}{logged[^Math.Min(logged.Length, 600)..]}");
        }, output);

        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => server.WaitAsync(Patience));
    }

    /// <summary>The message the server will read from <paramref name="line"/>, or null when it cannot parse it.</summary>
    private static ControlMessage? Classify(byte[] line)
    {
        try
        {
            return line.Length < ControlChannel.MaxLineBytes ? ControlChannel.Parse(line) : null;
        }
        catch (InvalidDataException)
        {
            return null;
        }
    }

    /// <summary>Up to the first newline: one line is one step of the exchange.</summary>
    private static byte[] FirstLine(byte[] bytes) => bytes.AsSpan().IndexOf((byte)'\n') is var at and >= 0 ? bytes[..at] : bytes;

    private static Socket Connect(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = (int)Patience.TotalMilliseconds };
        socket.Connect(new IPEndPoint(IPAddress.Loopback, port));
        return socket;
    }

    /// <summary>Connects, or, when the server has gone, fails with what ended its loop.</summary>
    private static Socket ConnectOrExplain(int port, Task<int> server)
    {
        try
        {
            return Connect(port);
        }
        catch (SocketException e)
        {
            Assert.True(server.Wait(Patience), $"the server refused a connection ({e.SocketErrorCode}) but did not end");
            throw new InvalidOperationException($"the server loop ended: {server.Exception?.InnerException ?? (object)server.Result}", e);
        }
    }

    private static void Send(Socket socket, byte[] line)
    {
        try
        {
            socket.Send([.. line, (byte)'\n']);
        }
        catch (SocketException)
        {
            // The server may already have rejected the start of a long line and closed.
        }
    }

    /// <summary>The next line from the server, or null at the end of the stream.</summary>
    private static ControlMessage? ReadLine(Socket socket)
    {
        var line = new List<byte>();
        var one = new byte[1];
        while (true)
        {
            int read;
            try
            {
                read = socket.Receive(one);
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
            {
                read = 0; // closed with our unread bytes still queued
            }

            if (read == 0)
            {
                Assert.Empty(line);
                return null;
            }

            if (one[0] == '\n')
            {
                return ControlChannel.Parse([.. line]);
            }

            line.Add(one[0]);
        }
    }

    private static List<ControlMessage> ReadToEnd(Socket socket)
    {
        var messages = new List<ControlMessage>();
        while (ReadLine(socket) is { } message)
        {
            messages.Add(message);
        }

        return messages;
    }

    /// <summary>
    /// Starts the server on an ephemeral port. It takes the UDP port the kernel picks and then binds TCP to the same
    /// number, which another socket on a busy machine may hold: then it is started again, up to five times.
    /// </summary>
    private static async Task<(Task<int> Server, int Port)> StartAsync(CliConsole console, CancellationToken stop)
    {
        for (var attempt = 1; ; attempt++)
        {
            var server = Task.Run(() => ServerCommand.RunAsync(console, IPAddress.Loopback, 0, 1, 0, false, DatagramBackend.Auto, stop));
            for (var i = 0; i < 3000 && !server.IsCompleted; i++)
            {
                if (ListeningOn().Match(console.Out.ToString()!) is { Success: true } match)
                {
                    return (server, int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture));
                }

                await Task.Delay(10);
            }

            if (attempt == 5 || server.Exception?.InnerException is not CliException { Message: var message } || !message.Contains("already in use", StringComparison.Ordinal))
            {
                throw new InvalidOperationException($"salvo server did not start: {console.Out} {server.Exception}");
            }
        }
    }

    [GeneratedRegex(@"listening on [^ ]+:(\d+) ")]
    private static partial Regex ListeningOn();

    /// <summary>A text writer the server's thread writes and the test's thread reads.</summary>
    private sealed class LockedWriter : TextWriter
    {
        private readonly StringBuilder _text = new();

        public override Encoding Encoding => Encoding.UTF8;

        public override string ToString() => Text;

        public string Text
        {
            get
            {
                lock (_text)
                {
                    return _text.ToString();
                }
            }
        }

        public override void Write(char value)
        {
            lock (_text)
            {
                _text.Append(value);
            }
        }

        public override void Write(string? value)
        {
            lock (_text)
            {
                _text.Append(value);
            }
        }
    }
}
