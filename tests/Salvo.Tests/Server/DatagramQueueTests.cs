using System.Net;
using Salvo.Server;

namespace Salvo.Tests.Server;

public sealed class DatagramQueueTests
{
    [Fact]
    public void Queue_ThroughManyWrapArounds_KeepsEveryPayloadIntactAndInOrder()
    {
        // 1,000 bytes of ring and lengths up to 300: records wrap around the end again and again.
        var queue = new DatagramQueue(capacity: 16, bytes: 1000);
        var input = new ReceiveBatch(capacity: 4, bufferSize: 300);
        var output = new ReceiveBatch(capacity: 3, bufferSize: 300);
        var source = DatagramAddress.Create(IPAddress.Loopback, 4000);
        long produced = 0;
        long consumed = 0;
        for (var round = 0; round < 500; round++)
        {
            Fill(input, ref produced, source);
            var outcome = default(EnqueueOutcome);
            var next = queue.Enqueue(input, 0, QueueOverflowPolicy.Wait, ref outcome);
            // Wait stops where the ring is full; drain and put the rest in.
            while (next < input.Count)
            {
                consumed = Drain(queue, output, consumed);
                next = queue.Enqueue(input, next, QueueOverflowPolicy.Wait, ref outcome);
            }

            Assert.Equal(input.Count, outcome.Enqueued);
            if (round % 3 == 0)
            {
                consumed = Drain(queue, output, consumed);
            }
        }

        consumed = Drain(queue, output, consumed);
        Assert.Equal(produced, consumed);
    }

    [Fact]
    public void Queue_DropOldest_WhenBytesRunOut_DropsFromTheHead()
    {
        var queue = new DatagramQueue(capacity: 100, bytes: 250);
        var input = new ReceiveBatch(capacity: 4, bufferSize: 300);
        long produced = 0;
        var source = DatagramAddress.Create(IPAddress.Loopback, 4000);
        var outcome = default(EnqueueOutcome);
        for (var i = 0; i < 5; i++)
        {
            Fill(input, ref produced, source, length: 100);
            queue.Enqueue(input, 0, QueueOverflowPolicy.DropOldest, ref outcome);
        }

        // 250 bytes hold two 100-byte datagrams: the newest two of twenty.
        Assert.Equal(2, queue.Count);
        Assert.Equal(18, outcome.DroppedOldest);
        var output = new ReceiveBatch(capacity: 4, bufferSize: 300);
        Assert.Equal(2, queue.Dequeue(output));
        Assert.Equal(18, ReadSequenced(output[0].Payload));
        Assert.Equal(19, ReadSequenced(output[1].Payload));
    }

    private static void Fill(ReceiveBatch batch, ref long produced, DatagramAddress source, int? length = null)
    {
        // Writes SequencedPayload datagrams straight into the batch, as a receive would.
        var entries = batch.Entries;
        for (var i = 0; i < batch.Capacity; i++)
        {
            var sequence = produced++;
            var size = length ?? (int)(SequencedPayload.LengthFor(sequence) % 300);
            size = Math.Max(size, SequencedPayload.HeaderLength);
            entries[i].Offset = i * batch.SlotStride;
            entries[i].Length = size;
            entries[i].Address = source;
            entries[i].IsTruncated = false;
            WriteSequenced(batch.Buffer.AsSpan(entries[i].Offset, size), sequence);
        }

        batch.SetCount(batch.Capacity);
    }

    private static long Drain(DatagramQueue queue, ReceiveBatch output, long consumed)
    {
        int taken;
        while ((taken = queue.Dequeue(output)) > 0)
        {
            for (var i = 0; i < taken; i++)
            {
                Assert.Equal(consumed, ReadSequenced(output[i].Payload));
                consumed++;
            }
        }

        return consumed;
    }

    // A sequence number followed by bytes derived from it, any length from 12 bytes up.
    private static void WriteSequenced(Span<byte> destination, long sequence)
    {
        BitConverter.TryWriteBytes(destination, sequence);
        BitConverter.TryWriteBytes(destination[8..], destination.Length);
        for (var i = 12; i < destination.Length; i++)
        {
            destination[i] = (byte)(sequence * 7 + i);
        }
    }

    private static long ReadSequenced(ReadOnlySpan<byte> payload)
    {
        var sequence = BitConverter.ToInt64(payload);
        Assert.Equal(payload.Length, BitConverter.ToInt32(payload[8..]));
        for (var i = 12; i < payload.Length; i++)
        {
            Assert.Equal((byte)(sequence * 7 + i), payload[i]);
        }

        return sequence;
    }
}
