using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using Salvo.Tunnel.Crypto;

namespace Salvo.Benchmarks;

/// <summary>
/// The tunnel's own seal and open of one packet, as its data path calls them (<see cref="PlatformAead"/>, one key,
/// a new nonce per packet, in place, no associated data), in microseconds of this process's user CPU time per packet:
/// not wall time, because the machines this runs on are shared and a descheduled thread is not the cipher's cost, and
/// not system time, which on a host busy with network traffic also takes the softirq work that interrupts this thread
/// (<c>openssl speed</c> divides by user CPU time too, so the two figures compare). Medians over batches.
/// Usage: aead-cost [bytes=1420] [packets per batch=100000] [batches=9]
/// </summary>
internal static class AeadPacketCost
{
    private const int TagSize = 16;

    public static int Run(string[] args)
    {
        var size = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 1_420;
        var packets = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 100_000;
        var batches = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 9;
        var aead = PlatformAead.ChaCha20Poly1305 ?? throw new InvalidOperationException("No platform ChaCha20-Poly1305 here (Linux with libcrypto.so.3).");
        using var key = aead.CreateKey(RandomNumberGenerator.GetBytes(32));
        var buffer = RandomNumberGenerator.GetBytes(size + TagSize);
        var nonce = new byte[aead.NonceSize];
        var counter = 0UL;

        // Warm up: the first calls run before tiered compilation has finished with them.
        Seal(key, nonce, buffer, size, ref counter, packets);
        Open(key, SealedRing(key, size), size, packets);
        var sealedPackets = SealedRing(key, size);

        var seal = new double[batches];
        var open = new double[batches];
        for (var batch = 0; batch < batches; batch++)
        {
            var start = Process.GetCurrentProcess().UserProcessorTime;
            Seal(key, nonce, buffer, size, ref counter, packets);
            seal[batch] = (Process.GetCurrentProcess().UserProcessorTime - start).TotalMicroseconds / packets;
            start = Process.GetCurrentProcess().UserProcessorTime;
            var opened = Open(key, sealedPackets, size, packets);
            open[batch] = (Process.GetCurrentProcess().UserProcessorTime - start).TotalMicroseconds / packets;
            if (opened != packets)
            {
                throw new InvalidOperationException($"{packets - opened} of {packets} packets did not open.");
            }
        }

        Console.WriteLine(FormattableString.Invariant($"aead-cost: {size} B, {batches} x {packets:N0} packets: seal {Median(seal):F3} us/packet, open {Median(open):F3} us/packet"));
        return 0;
    }

    private static void Seal(IAeadKey key, byte[] nonce, byte[] buffer, int size, ref ulong counter, int packets)
    {
        for (var i = 0; i < packets; i++)
        {
            // WireGuard's nonce: 4 zero bytes, then the counter (little-endian).
            BitConverter.TryWriteBytes(nonce.AsSpan(4), counter++);
            key.Seal(nonce, [], buffer.AsSpan(0, size), buffer);
        }
    }

    /// <summary>A few packets sealed with counters 0, 1, ...: few enough to stay in cache, as a burst of received packets does.</summary>
    private static byte[][] SealedRing(IAeadKey key, int size)
    {
        var ring = new byte[64][];
        var nonce = new byte[12];
        for (var i = 0; i < ring.Length; i++)
        {
            BitConverter.TryWriteBytes(nonce.AsSpan(4), (ulong)i);
            ring[i] = new byte[size + TagSize];
            key.Seal(nonce, [], RandomNumberGenerator.GetBytes(size), ring[i]);
        }

        return ring;
    }

    private static int Open(IAeadKey key, byte[][] ring, int size, int packets)
    {
        // Out of place, so each sealed packet stays intact for the next pass over the ring.
        var nonce = new byte[12];
        var plaintext = new byte[size];
        var opened = 0;
        for (var i = 0; i < packets; i++)
        {
            var index = i % ring.Length;
            BitConverter.TryWriteBytes(nonce.AsSpan(4), (ulong)index);
            opened += key.TryOpen(nonce, [], ring[index], plaintext) ? 1 : 0;
        }

        return opened;
    }

    private static double Median(double[] values)
    {
        var sorted = values.Order().ToArray();
        return sorted[sorted.Length / 2];
    }
}
