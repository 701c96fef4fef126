using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Runtime.Versioning;

namespace Salvo.Tests.Sockets;

/// <summary>
/// A VPN or a client fleet holds thousands of sockets at once: each pending receive must cost a little
/// memory, not a thread.
/// </summary>
[Collection(NonParallelCollection.Name)]
public sealed class ManySocketsTests
{
    private const int SocketCount = 10_000;

    [RequiresFact(Requirement.Linux)]
    [SupportedOSPlatform("linux")]
    public Task LinuxBatched_TenThousandPendingReceives_NeedNoThreadEach_AndEachGetsItsDatagram() =>
        RunManySockets(DatagramBackend.LinuxBatched);

    [RequiresFact(Requirement.IoUring)]
    [SupportedOSPlatform("linux")]
    public Task IoUring_TenThousandPendingReceives_NeedNoThreadEach_AndEachGetsItsDatagram() =>
        RunManySockets(DatagramBackend.IoUring);

    [Fact]
    public Task Portable_TenThousandPendingReceives_NeedNoThreadEach_AndEachGetsItsDatagram() =>
        RunManySockets(DatagramBackend.Portable);

    private static async Task RunManySockets(DatagramBackend backend)
    {
        var sockets = new List<DatagramSocket>(SocketCount);
        try
        {
            using var process = Process.GetCurrentProcess();
            var threadsBefore = process.Threads.Count;
            var pending = new Task<int>[SocketCount];
            var batches = new ReceiveBatch[SocketCount];
            for (var i = 0; i < SocketCount; i++)
            {
                var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0), backend);
                sockets.Add(socket);
                batches[i] = new ReceiveBatch(capacity: 1, bufferSize: 16);
                pending[i] = socket.ReceiveAsync(batches[i]).AsTask();
            }

            await Task.Delay(100);
            Assert.DoesNotContain(pending, task => task.IsCompleted);
            process.Refresh();
            var threadsWhilePending = process.Threads.Count;
            Assert.True(threadsWhilePending - threadsBefore < 64, $"threads grew from {threadsBefore} to {threadsWhilePending}");

            using var sender = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0), backend);
            var batch = new SendBatch(capacity: 64, maxDatagramSize: 4);
            var payload = new byte[4];
            for (var i = 0; i < SocketCount; i++)
            {
                BinaryPrimitives.WriteInt32LittleEndian(payload, i);
                batch.Add(payload, sockets[i].LocalAddress);
                if (batch.IsFull || i == SocketCount - 1)
                {
                    Assert.Equal(batch.Count, await sender.SendAsync(batch));
                    batch.Clear();
                }
            }

            var all = Task.WhenAll(pending);
            Assert.Same(all, await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(30))));
            for (var i = 0; i < SocketCount; i++)
            {
                Assert.Equal(1, pending[i].Result);
                Assert.Equal(i, BinaryPrimitives.ReadInt32LittleEndian(batches[i][0].Payload));
                Assert.Equal(sender.LocalAddress, batches[i][0].Source);
            }
        }
        finally
        {
            foreach (var socket in sockets)
            {
                socket.Dispose();
            }
        }
    }
}
