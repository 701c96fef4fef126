using System.Buffers;
using Salvo.Streams;
using Xunit.Abstractions;

namespace Salvo.Tests.Streams;

[Collection(NonParallelCollection.Name)]
public sealed class StreamAllocationTests(ITestOutputHelper output)
{
    private const int Messages = 20_000;
    private const int Window = 64;

    // Measured 0.1 bytes per echoed message, both ends, whole process, in the best of three rounds (one round
    // alone: up to 13.8). 32 catches any object allocated per message (the smallest is 24 bytes).
    private const long MaxBytesPerMessage = 32;

    [Theory]
    [InlineData("length-prefix")]
    [InlineData("delimited")]
    public async Task EchoSteadyState_AllocatesAlmostNothingPerMessage(string framing)
    {
        IMessageFramer framer = framing == "delimited" ? new DelimitedFramer() : new LengthPrefixFramer();
        var echo = StreamHandler.Create((connection, message) =>
        {
            // Replies straight from the input pipe; a frame split over two blocks is the one case that needs a copy.
            Span<byte> copy = stackalloc byte[256];
            var reply = message.IsSingleSegment ? message.FirstSpan : Copy(message, copy);
            Assert.True(connection.TrySend(reply));
            return ValueTask.CompletedTask;
        });
        await using var server = new StreamServer(new StreamServerOptions { Framer = framer }, echo);
        server.Start();
        long received = 0;
        var counter = StreamHandler.Create((_, _) =>
        {
            Interlocked.Increment(ref received);
            return ValueTask.CompletedTask;
        });
        await using var client = new StreamClient(new StreamClientOptions { Framer = framer }, counter);
        var connection = await client.ConnectAsync(server.LocalEndPoint!);
        ReadOnlyMemory<byte> message = StreamTestKit.Message(3, 100); // includes 0x02, 0x03 and 0x10 bytes

        await RunAsync(connection, message, Messages / 4, () => Interlocked.Read(ref received)); // warm-up

        // The least of three rounds: one-off costs (tiered JIT, thread-pool growth) land in one round, while an
        // allocation per message shows in every round.
        var allocated = long.MaxValue;
        for (var round = 0; round < 3; round++)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            await RunAsync(connection, message, Messages, () => Interlocked.Read(ref received));
            allocated = Math.Min(allocated, GC.GetTotalAllocatedBytes(precise: true) - before);
        }

        output.WriteLine($"{framing}: {allocated:N0} bytes allocated for {Messages:N0} echoed messages ({(double)allocated / Messages:F1} per message)");
        Assert.InRange(allocated / Messages, 0, MaxBytesPerMessage);
    }

    private static ReadOnlySpan<byte> Copy(ReadOnlySequence<byte> message, Span<byte> destination)
    {
        message.CopyTo(destination);
        return destination[..(int)message.Length];
    }

    /// <summary>
    /// Sends <paramref name="count"/> messages with at most <see cref="Window"/> unanswered. Waits by yielding, which
    /// allocates nothing, so that the measurement sees only the library.
    /// </summary>
    private static async Task RunAsync(StreamConnection connection, ReadOnlyMemory<byte> message, int count, Func<long> received)
    {
        var target = received() + count;
        var sent = received();
        while (received() < target)
        {
            while (sent < target && sent - received() < Window)
            {
                Assert.True(await connection.SendAsync(message));
                sent++;
            }

            await Task.Yield();
        }
    }
}
