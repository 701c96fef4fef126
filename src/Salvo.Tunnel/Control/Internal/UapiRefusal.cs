namespace Salvo.Tunnel.Control;

/// <summary>Why the control socket refused a request or closed a connection; each is counted by <see cref="UapiCounters"/>.</summary>
internal enum UapiRefusal
{
    /// <summary>Nothing was refused: the client closed between requests.</summary>
    None,

    /// <summary>A line of a <c>set</c> is not key=value (EPROTO).</summary>
    Malformed,

    /// <summary>An unknown key, or a value the key cannot take (EINVAL).</summary>
    Invalid,

    /// <summary>The device could not apply a well-formed change (a listen port in use).</summary>
    DeviceRefused,

    /// <summary>A line longer than <see cref="UapiLimits.MaxLineBytes"/>.</summary>
    LineTooLong,

    /// <summary>A request over <see cref="UapiLimits.MaxRequestBytes"/> or its peer or AllowedIP counts.</summary>
    RequestTooLarge,

    /// <summary>The connection ended in the middle of a request, before its blank line; nothing was applied.</summary>
    Incomplete,

    /// <summary>The first line is neither <c>get=1</c> nor <c>set=1</c>, or <c>get=1</c> is not followed by a blank line.</summary>
    UnknownOperation,

    /// <summary>No whole line within <see cref="UapiLimits.IdleTimeout"/>.</summary>
    IdleTimeout,

    /// <summary>A request or its answer took longer than <see cref="UapiLimits.RequestTimeout"/>.</summary>
    RequestTimeout,

    /// <summary>Closed to make room for a new connection at <see cref="UapiLimits.MaxConnections"/>.</summary>
    Evicted,

    /// <summary>Accepting a connection failed (out of descriptors); the listener goes on.</summary>
    AcceptFailed,
}

/// <summary>Counts of <see cref="UapiRefusal"/>, safe to bump from any connection.</summary>
internal sealed class UapiCounters
{
    private readonly long[] _counts = new long[Enum.GetValues<UapiRefusal>().Length];

    public void Count(UapiRefusal reason) => Interlocked.Increment(ref _counts[(int)reason]);

    public long this[UapiRefusal reason] => Interlocked.Read(ref _counts[(int)reason]);
}
