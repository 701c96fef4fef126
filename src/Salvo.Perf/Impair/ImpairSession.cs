using System.Buffers;
using System.Net;

namespace Salvo.Perf.Impair;

/// <summary>A datagram's bytes in a rented array while the relay holds it.</summary>
internal readonly record struct ImpairPacket(byte[] Buffer, int Length)
{
    /// <summary>Copies <paramref name="payload"/> into a rented array.</summary>
    public static ImpairPacket Copy(ReadOnlySpan<byte> payload)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(Math.Max(1, payload.Length));
        payload.CopyTo(buffer);
        return new ImpairPacket(buffer, payload.Length);
    }

    /// <summary>Gives the array back.</summary>
    public void Return() => ArrayPool<byte>.Shared.Return(Buffer);
}

/// <summary>
/// One client of the relay, known by its source address: an upstream socket of its own (so the server's
/// replies can be told apart and sent back to this client) and one impairment line per direction.
/// </summary>
internal sealed class ImpairSession : IDisposable
{
    private long _lastActivity;

    public ImpairSession(DatagramAddress client, IPEndPoint forward, ImpairOptions options, ulong index)
    {
        Client = client;
        var local = IPAddress.IsLoopback(forward.Address)
            ? forward.Address
            : forward.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any;
        Upstream = new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(local, 0),
            ReceiveBufferSize = 4 << 20,
            SendBufferSize = 4 << 20,
            Gso = false,
            Gro = false,
        });

        // Each line has its own dice, derived from the seed, the session's number and the direction, so a
        // single-client run repeats exactly whatever the other direction does.
        var hold = options.ReorderHold.Ticks * 100;
        Up = new ImpairLine<ImpairPacket>(new ImpairDecider(options.Probabilities, Mix(options.Seed, index * 2)), options.ReorderGap, hold);
        Down = new ImpairLine<ImpairPacket>(new ImpairDecider(options.Probabilities, Mix(options.Seed, (index * 2) + 1)), options.ReorderGap, hold);
        Touch();
    }

    /// <summary>The client's address, where replies go.</summary>
    public DatagramAddress Client { get; }

    /// <summary>The socket that talks to the server for this client.</summary>
    public DatagramSocket Upstream { get; }

    /// <summary>Client to server; lock it while using it.</summary>
    public ImpairLine<ImpairPacket> Up { get; }

    /// <summary>Server to client; lock it while using it.</summary>
    public ImpairLine<ImpairPacket> Down { get; }

    /// <summary>Set (under both line locks) when the relay forgets this client; nothing enters its lines after.</summary>
    public bool Retired { get; set; }

    /// <summary>When a datagram last passed either way, in <see cref="Environment.TickCount64"/> milliseconds.</summary>
    public long LastActivity => Volatile.Read(ref _lastActivity);

    /// <summary>Notes traffic now.</summary>
    public void Touch() => Volatile.Write(ref _lastActivity, Environment.TickCount64);

    public void Dispose() => Upstream.Dispose();

    /// <summary>One SplitMix64 step over seed and index: distinct, well-spread seeds for each line.</summary>
    private static ulong Mix(ulong seed, ulong index)
    {
        var z = seed + ((index + 1) * 0x9E3779B97F4A7C15UL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
