using System.Net.Sockets;
using Salvo.Fuzzing;
using Salvo.Streams;
using Salvo.Tests.Streams;

namespace Salvo.Tests.Fuzzing;

/// <summary>The fuzz finding in STX/ETX framing, end to end: a stream connection must not buffer an endless frame.</summary>
[Trait("Category", "Fuzz")]
public sealed class DelimitedConnectionRegressionTests
{
    private const int Limit = 64;

    [Fact]
    public async Task StreamServer_StxThenEndlessDleRun_ClosesTheConnectionAsMalformed()
    {
        var handler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions { Framer = new DelimitedFramer(Limit) }, handler);
        server.Start();
        using var attacker = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await attacker.ConnectAsync(server.LocalEndPoint!);
        var onServer = await handler.NextConnectionAsync();

        // The stored fuzz input, then DLEs 100 times the frame limit: before the fix all of it was held, waiting for ETX.
        var input = File.ReadAllBytes(FuzzCorpus.Files("delimited", "regress-dle-run.bin").Single());
        await attacker.SendAsync(input.AsMemory(0, input.Length / 2));
        try
        {
            await attacker.SendAsync(Enumerable.Repeat(DelimitedFramer.Dle, 100 * new DelimitedFramer(Limit).MaxFrameSize).ToArray());
            attacker.Shutdown(SocketShutdown.Send); // no wait for the close timeout either way
        }
        catch (SocketException)
        {
            // Closed by the server while sending: what the test waits for below.
        }

        await onServer.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.MalformedFrame, onServer.CloseReason);
    }

    [Theory]
    [InlineData("delimited", new byte[] { 0x02, 0x41 })]
    [InlineData("length-prefix", new byte[] { 0x00, 0x00, 0x00, 0x05, 0x41 })]
    public async Task StreamServer_StreamEndsInsideAFrame_ClosesAsMalformed(string framer, byte[] partial)
    {
        var handler = new RecordingHandler();
        await using var server = new StreamServer(new StreamServerOptions { Framer = FramerFuzzTests.Create(framer, Limit) }, handler);
        server.Start();
        using var peer = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(server.LocalEndPoint!);
        var onServer = await handler.NextConnectionAsync();

        await peer.SendAsync(partial);
        peer.Shutdown(SocketShutdown.Send);

        await onServer.Completion.WaitAsync(RecordingHandler.Patience);
        Assert.Equal(StreamCloseReason.MalformedFrame, onServer.CloseReason);
    }
}
