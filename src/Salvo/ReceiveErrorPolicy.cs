namespace Salvo;

/// <summary>
/// What a receive loop does when a receive fails for a reason that may pass (a <see cref="System.Net.Sockets.SocketException"/>
/// for one call: ENOBUFS or ENOMEM under memory pressure, an error queued by an earlier packet): the loop goes on.
/// <see cref="RecordError"/> counts the failure and says whether to log it: the first at once, then at most one per
/// <see cref="LogInterval"/>, with the number held back since; <see cref="BackOff"/> (or <see cref="BackOffAsync"/>)
/// then pauses the loop for <see cref="BackOffDelay"/>, so a failure that repeats on every call costs a log line a
/// second and a hundred calls a second, not a spinning core. <see cref="Server.DatagramServer"/>'s workers and the
/// tunnel's loops follow it; a loop of your own on a <see cref="DatagramSocket"/> can too. One per loop: call
/// <see cref="RecordError"/> from the loop's thread; <see cref="Errors"/> may be read from any thread.
/// </summary>
/// <example>
/// <code>
/// var errors = new ReceiveErrorPolicy();
/// while (!stop.IsCancellationRequested)
/// {
///     try
///     {
///         if (socket.Receive(batch, TimeSpan.FromMilliseconds(100)) > 0) Handle(batch);
///     }
///     catch (SocketException e)
///     {
///         if (errors.RecordError(out var notLogged)) logger.LogWarning(e, "Receive failed ({NotLogged} more not logged)", notLogged);
///         errors.BackOff(stop);
///     }
/// }
/// </code>
/// </example>
public sealed class ReceiveErrorPolicy
{
    private readonly TimeProvider _time;
    private readonly Server.LogRateLimiter _log;
    private long _errors;

    /// <summary>The policy the server's workers use: one log line a second at most, a 10 ms pause after each failure, the system clock.</summary>
    public ReceiveErrorPolicy()
        : this(DefaultLogInterval, DefaultBackOffDelay)
    {
    }

    /// <param name="logInterval">The shortest time between two failures let through to the log; zero logs every one.</param>
    /// <param name="backOffDelay">How long <see cref="BackOff"/> pauses the loop; zero does not pause.</param>
    /// <param name="time">The clock both are measured on. Defaults to <see cref="TimeProvider.System"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="logInterval"/> or <paramref name="backOffDelay"/> is negative, or the delay is longer than a timer takes.</exception>
    public ReceiveErrorPolicy(TimeSpan logInterval, TimeSpan backOffDelay, TimeProvider? time = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(logInterval, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(backOffDelay, TimeSpan.Zero);
        // Task.Delay's limit: a timer takes at most uint.MaxValue - 1 milliseconds (about 49.7 days).
        ArgumentOutOfRangeException.ThrowIfGreaterThan(backOffDelay, TimeSpan.FromMilliseconds(uint.MaxValue - 1));
        _time = time ?? TimeProvider.System;
        _log = new Server.LogRateLimiter(logInterval, _time);
        LogInterval = logInterval;
        BackOffDelay = backOffDelay;
    }

    /// <summary>The log interval of the parameterless constructor: 1 s.</summary>
    public static TimeSpan DefaultLogInterval { get; } = TimeSpan.FromSeconds(1);

    /// <summary>The back-off of the parameterless constructor: 10 ms.</summary>
    public static TimeSpan DefaultBackOffDelay { get; } = TimeSpan.FromMilliseconds(10);

    /// <summary>The shortest time between two failures let through to the log.</summary>
    public TimeSpan LogInterval { get; }

    /// <summary>How long <see cref="BackOff"/> and <see cref="BackOffAsync"/> pause the loop.</summary>
    public TimeSpan BackOffDelay { get; }

    /// <summary>Failures recorded so far.</summary>
    public long Errors => Interlocked.Read(ref _errors);

    /// <summary>
    /// Counts one failure; true when it is to be logged now (the first, and then the first after each
    /// <see cref="LogInterval"/>), with <paramref name="notLogged"/> the failures held back since the last one logged.
    /// </summary>
    public bool RecordError(out long notLogged)
    {
        Interlocked.Increment(ref _errors);
        return _log.TryEnter(out notLogged);
    }

    /// <summary>Blocks the calling thread for <see cref="BackOffDelay"/>; returns at once when <paramref name="cancellationToken"/> fires.</summary>
    public void BackOff(CancellationToken cancellationToken = default) => BackOffAsync(cancellationToken).GetAwaiter().GetResult();

    /// <summary>Completes after <see cref="BackOffDelay"/>, or at once (without throwing) when <paramref name="cancellationToken"/> fires.</summary>
    public async Task BackOffAsync(CancellationToken cancellationToken = default) =>
        await Task.Delay(BackOffDelay, _time, cancellationToken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
}
