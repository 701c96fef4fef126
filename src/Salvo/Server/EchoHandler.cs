using System.Collections.Concurrent;
using System.Diagnostics;

namespace Salvo.Server;

/// <summary>
/// The UDP echo service (RFC 862): every datagram goes back unchanged to its sender, in the worker's
/// batched reply. Optionally limited per source (<see cref="EchoOptions.MaxDatagramsPerSecondPerSource"/>).
/// </summary>
/// <remarks>
/// An echo service open to the internet is a reflection and amplification risk: a forged source address
/// turns it into a traffic source aimed at a victim (and two echo services aimed at each other loop
/// forever). Bind it to trusted networks, or set a per-source rate limit. On the portable backend flows
/// are not pinned to workers, so the limit applies per worker.
/// </remarks>
public sealed class EchoHandler : IDatagramHandler
{
    private readonly EchoOptions _options;
    private readonly ConcurrentDictionary<int, SourceRateLimiter>? _limiters;
    private long _rateLimited;

    /// <summary>Creates an echo handler without a rate limit.</summary>
    public EchoHandler()
        : this(new EchoOptions())
    {
    }

    /// <summary>Creates an echo handler.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range; the message names it.</exception>
    public EchoHandler(EchoOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        _options = options;
        if (options.MaxDatagramsPerSecondPerSource is not null)
        {
            _limiters = new ConcurrentDictionary<int, SourceRateLimiter>();
        }
    }

    /// <summary>Datagrams not echoed because their source was over its rate.</summary>
    public long RateLimited => Interlocked.Read(ref _rateLimited);

    /// <inheritdoc />
    public void Handle(in DatagramContext context)
    {
        var replies = context.Replies;
        if (_limiters is null)
        {
            foreach (var datagram in context.Datagrams)
            {
                replies.TryAdd(datagram.Payload, datagram.Source);
            }

            return;
        }

        var limiter = _limiters.GetOrAdd(context.WorkerIndex, static (_, options) => new SourceRateLimiter(
            options.MaxDatagramsPerSecondPerSource!.Value, options.Burst, options.TrackedSources), _options);
        var now = Stopwatch.GetTimestamp();
        var limited = 0;
        foreach (var datagram in context.Datagrams)
        {
            if (limiter.TryTake(datagram.Source, now))
            {
                replies.TryAdd(datagram.Payload, datagram.Source);
            }
            else
            {
                limited++;
            }
        }

        if (limited > 0)
        {
            Interlocked.Add(ref _rateLimited, limited);
        }
    }
}
