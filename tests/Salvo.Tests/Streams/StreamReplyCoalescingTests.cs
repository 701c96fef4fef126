using System.Buffers;
using System.Buffers.Binary;
using System.Net.Sockets;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>Replies a handler sends while it runs synchronously go out together, once the frames of a read are handled.</summary>
public sealed class StreamReplyCoalescingTests
{
    private const int Requests = 50;
    private const int PayloadBytes = 12;

    [Fact]
    public async Task ManyRequestsInOneWrite_AreAnsweredInOrder_WithFarFewerSocketSendsThanReplies()
    {
        using var meters = new TestMeterFactory();
        using var socketSends = new MetricCollector<long>(meters, "Salvo", "salvo.stream.socket.sends");
        StreamConnection? serverSide = null;
        var echo = StreamHandler.Create((connection, message) =>
        {
            serverSide = connection;
            Assert.True(connection.TrySend(message.ToArray()));
            return ValueTask.CompletedTask;
        });
        await using var server = new StreamServer(new StreamServerOptions { MeterFactory = meters }, echo);
        server.Start();
        using var client = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(server.LocalEndPoint!);

        // One write of 50 frames: one segment on loopback, so the server reads them together.
        var frames = Enumerable.Range(0, Requests).SelectMany(i => Frame(StreamTestKit.Message(i, PayloadBytes))).ToArray();
        await client.SendAsync(frames);

        var echoed = await ReadExactlyAsync(client, frames.Length);
        Assert.Equal(frames, echoed);
        var sends = socketSends.GetMeasurementSnapshot().Sum(m => m.Value);
        // One send per reply (50) without coalescing; one per read with it.
        Assert.InRange(sends, 1, Requests / 10);
        // Replies queued before one flush are counted once each: the queue is empty again, not owed phantom bytes.
        await StreamTestKit.WaitUntilAsync(() => serverSide!.QueuedSendBytes == 0, () => $"the send queue is empty ({serverSide!.QueuedSendBytes} bytes)");
    }

    [Fact]
    public async Task HandlerThatGoesAsynchronous_DoesNotHoldBackWhatItAlreadySent()
    {
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var handler = StreamHandler.Create(async (connection, message) =>
        {
            var copy = message.ToArray();
            Assert.True(connection.TrySend(copy));
            if (copy[0] == 0)
            {
                // Waits for the test, which waits for the reply above: held back, the two would wait for ever.
                await release.Task.WaitAsync(RecordingHandler.Patience);
            }
        });
        await using var server = new StreamServer(new StreamServerOptions(), handler);
        server.Start();
        using var client = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(server.LocalEndPoint!);
        var first = Frame([0, 1, 2]);
        var second = Frame([1, 2, 3]);
        await client.SendAsync(first.Concat(second).ToArray());

        Assert.Equal(first, await ReadExactlyAsync(client, first.Length));
        release.SetResult();
        Assert.Equal(second, await ReadExactlyAsync(client, second.Length));
    }

    private static byte[] Frame(byte[] payload)
    {
        var frame = new byte[4 + payload.Length];
        BinaryPrimitives.WriteInt32BigEndian(frame, payload.Length);
        payload.CopyTo(frame, 4);
        return frame;
    }

    private static async Task<byte[]> ReadExactlyAsync(Socket socket, int length)
    {
        var buffer = new byte[length];
        var read = 0;
        while (read < length)
        {
            var n = await socket.ReceiveAsync(buffer.AsMemory(read)).AsTask().WaitAsync(RecordingHandler.Patience);
            Assert.True(n > 0, $"The stream ended after {read} of {length} bytes.");
            read += n;
        }

        return buffer;
    }
}
