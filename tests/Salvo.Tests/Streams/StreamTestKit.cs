using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net;
using System.Threading.Channels;
using Salvo.Streams;

namespace Salvo.Tests.Streams;

/// <summary>Records what happens on connections: opens, each message (copied), closes with their reasons.</summary>
internal sealed class RecordingHandler : IStreamHandler
{
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private readonly Channel<StreamConnection> _connected = Channel.CreateUnbounded<StreamConnection>();

    /// <summary>Send every message straight back.</summary>
    public bool Echo { get; init; }

    public ConcurrentDictionary<long, StreamCloseReason> Closed { get; } = new();

    public void OnConnected(StreamConnection connection)
    {
        connection.Tag = Channel.CreateUnbounded<byte[]>();
        _connected.Writer.TryWrite(connection);
    }

    public void OnClosed(StreamConnection connection, StreamCloseReason reason) => Closed[connection.Id] = reason;

    public async ValueTask OnMessageAsync(StreamConnection connection, ReadOnlySequence<byte> message)
    {
        var copy = message.ToArray();
        ((Channel<byte[]>)connection.Tag!).Writer.TryWrite(copy);
        if (Echo)
        {
            Assert.True(await connection.SendAsync(copy));
        }
    }

    public Task<StreamConnection> NextConnectionAsync() => _connected.Reader.ReadAsync().AsTask().WaitAsync(Patience);

    public static Task<byte[]> ReceiveAsync(StreamConnection connection) =>
        ((Channel<byte[]>)connection.Tag!).Reader.ReadAsync().AsTask().WaitAsync(Patience);
}

/// <summary>Gives each test its own "Salvo" meter, so that parallel tests do not count each other's connections.</summary>
internal sealed class TestMeterFactory : IMeterFactory
{
    private readonly List<Meter> _meters = [];

    public Meter Create(MeterOptions options)
    {
        var meter = new Meter(options.Name, options.Version, options.Tags, scope: this);
        lock (_meters)
        {
            _meters.Add(meter);
        }

        return meter;
    }

    public void Dispose()
    {
        lock (_meters)
        {
            _meters.ForEach(m => m.Dispose());
        }
    }
}

internal static class StreamTestKit
{
    public static IPEndPoint Loopback => new(IPAddress.Loopback, 0);

    /// <summary>Polls a condition that the system reaches on its own (a buffer given back after the last byte went out).</summary>
    public static Task WaitUntilAsync(Func<bool> condition, string what) => WaitUntilAsync(condition, () => what);

    /// <summary>As above, with a description computed when the wait fails (to show the state it got stuck in).</summary>
    public static async Task WaitUntilAsync(Func<bool> condition, Func<string> what)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(clock.Elapsed < RecordingHandler.Patience, $"Timed out waiting until {what()}.");
            await Task.Delay(5);
        }
    }

    public static byte[] Message(int sequence, int length)
    {
        var message = new byte[length];
        for (var i = 0; i < length; i++)
        {
            message[i] = (byte)(sequence + (i * 7));
        }

        return message;
    }
}
