using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Salvo.Server;

/// <summary>
/// A token bucket per source address in a fixed, direct-mapped table: no allocation per source, bounded
/// memory. One per worker; not thread-safe.
/// </summary>
internal sealed class SourceRateLimiter
{
    private readonly Bucket[] _buckets;
    private readonly double _tokensPerTick;
    private readonly double _burst;

    public SourceRateLimiter(double perSecond, int burst, int trackedSources)
    {
        _buckets = new Bucket[BitOperations.RoundUpToPowerOf2((uint)trackedSources)];
        _tokensPerTick = perSecond / Stopwatch.Frequency;
        _burst = burst;
    }

    public bool TryTake(DatagramAddress source, long now)
    {
        ref var bucket = ref _buckets[source.GetHashCode() & (_buckets.Length - 1)];
        if (bucket.Source != source)
        {
            bucket.Source = source;
            bucket.Tokens = _burst;
            bucket.Updated = now;
        }
        else
        {
            bucket.Tokens = Math.Min(_burst, bucket.Tokens + ((now - bucket.Updated) * _tokensPerTick));
            bucket.Updated = now;
        }

        if (bucket.Tokens < 1)
        {
            return false;
        }

        bucket.Tokens -= 1;
        return true;
    }

    [StructLayout(LayoutKind.Auto)]
    private struct Bucket
    {
        public DatagramAddress Source;
        public double Tokens;
        public long Updated;
    }
}
