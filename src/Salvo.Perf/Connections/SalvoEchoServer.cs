using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using Salvo.Streams;

namespace Salvo.Perf.Connections;

/// <summary>The echo <see cref="StreamServer"/> of a <c>salvo connections</c> server shard.</summary>
internal sealed class SalvoEchoServer : IEchoShardServer
{
    private readonly ConcurrentDictionary<string, long> _closedByReason = new();
    private readonly StreamServer _server;

    public SalvoEchoServer(IPEndPoint endPoint, IMessageFramer framer)
    {
        var handler = StreamHandler.Create(
            static (connection, message) =>
            {
                Echo(connection, message);
                return ValueTask.CompletedTask;
            },
            (_, reason) => _closedByReason.AddOrUpdate(reason.ToString(), 1, (_, n) => n + 1));
        _server = new StreamServer(
            new StreamServerOptions
            {
                EndPoint = endPoint,
                Framer = framer,
                ReusePort = true,
                IdleTimeout = TimeSpan.FromHours(1),
                Backlog = 4_096,
            },
            handler);
    }

    public int Port => ((IPEndPoint)_server.LocalEndPoint!).Port;

    public int ConnectionCount => _server.ConnectionCount;

    public long PinnedBytes => _server.BufferPool.PinnedBytes;

    public long RentedBlocks => _server.BufferPool.RentedBlocks;

    public IReadOnlyDictionary<string, long> ClosedByReason => new Dictionary<string, long>(_closedByReason);

    public void Start() => _server.Start();

    public ValueTask DisposeAsync() => _server.DisposeAsync();

    private static void Echo(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        if (message.IsSingleSegment)
        {
            connection.TrySend(message.FirstSpan);
            return;
        }

        var copy = ArrayPool<byte>.Shared.Rent((int)message.Length);
        message.CopyTo(copy);
        connection.TrySend(copy.AsSpan(0, (int)message.Length));
        ArrayPool<byte>.Shared.Return(copy);
    }
}
