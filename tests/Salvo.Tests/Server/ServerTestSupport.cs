using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Salvo.Server;

namespace Salvo.Tests.Server;

/// <summary>Loopback clients, bounded waits and datagram helpers shared by the server tests.</summary>
internal static class ServerTestSupport
{
    /// <summary>The longest any test waits for a condition; reached only when the behaviour is broken.</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    public static DatagramServerOptions LoopbackOptions(int workers = 1) => new()
    {
        EndPoint = new IPEndPoint(IPAddress.Loopback, 0),
        Workers = workers,
        MaxDatagramSize = 2048,
        QueueBytes = 1 << 20,
        ReceiveBufferSize = 1 << 20,
        DrainTimeout = TimeSpan.FromSeconds(10),
    };

    public static Socket Client(IPAddress? address = null)
    {
        address ??= IPAddress.Loopback;
        var socket = new Socket(address.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        socket.Bind(new IPEndPoint(address, 0));
        socket.ReceiveTimeout = (int)Patience.TotalMilliseconds;
        return socket;
    }

    /// <summary>Polls <paramref name="condition"/> until it holds or <see cref="Patience"/> runs out.</summary>
    public static async Task<bool> WaitUntil(Func<bool> condition)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > Patience)
            {
                return false;
            }

            await Task.Delay(5);
        }

        return true;
    }

    public static byte[] Numbered(int flow, int sequence)
    {
        var payload = new byte[8];
        BinaryPrimitives.WriteInt32LittleEndian(payload, flow);
        BinaryPrimitives.WriteInt32LittleEndian(payload.AsSpan(4), sequence);
        return payload;
    }

    public static (int Flow, int Sequence) ReadNumbered(ReadOnlySpan<byte> payload) =>
        (BinaryPrimitives.ReadInt32LittleEndian(payload), BinaryPrimitives.ReadInt32LittleEndian(payload[4..]));
}

/// <summary>A handler that records what it saw and can hold its worker at a gate.</summary>
internal sealed class RecordingHandler : IDatagramHandler
{
    private readonly Lock _lock = new();
    private readonly List<(int Worker, int Flow, int Sequence)> _seen = [];
    private int _calls;

    /// <summary>While closed, every call waits here (bounded) before recording.</summary>
    public ManualResetEventSlim Gate { get; } = new(initialState: true);

    /// <summary>Datagrams in the first call (the batch held at the gate).</summary>
    public int FirstCallSize { get; private set; } = -1;

    public int Calls => Volatile.Read(ref _calls);

    /// <summary>
    /// Datagrams recorded so far. The server counts a datagram handled when the call starts, so wait on
    /// this, not on the server's counter, before reading <see cref="Seen"/>.
    /// </summary>
    public int SeenCount
    {
        get
        {
            lock (_lock)
            {
                return _seen.Count;
            }
        }
    }

    public List<(int Worker, int Flow, int Sequence)> Seen
    {
        get
        {
            lock (_lock)
            {
                return [.. _seen];
            }
        }
    }

    public void Handle(in DatagramContext context)
    {
        lock (_lock)
        {
            if (FirstCallSize < 0)
            {
                FirstCallSize = context.Datagrams.Count;
            }

            foreach (var datagram in context.Datagrams)
            {
                var (flow, sequence) = ServerTestSupport.ReadNumbered(datagram.Payload);
                _seen.Add((context.WorkerIndex, flow, sequence));
            }
        }

        Interlocked.Increment(ref _calls);
        Gate.Wait(ServerTestSupport.Patience);
    }
}
