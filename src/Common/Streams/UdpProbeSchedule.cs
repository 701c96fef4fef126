namespace Salvo.Streams;

/// <summary>
/// When a path on TCP next tries UDP (a MessageTransport, a tunnel peer), next tries to open a TCP connection that closed,
/// or a refused dial is tried again: the first delay, then doubling up to a cap, each spread by a random share so that
/// many clients cut off by one network outage (or one server restart) do not try in step. One copy of source, compiled
/// into the library and the tunnel.
/// </summary>
internal sealed class UdpProbeSchedule(TimeSpan first, TimeSpan max, double jitter, Random random)
{
    private TimeSpan _next = first;

    /// <summary>The delay before the next probe, within ± <c>jitter</c> of the doubling sequence; advances it.</summary>
    public TimeSpan Next()
    {
        var delay = _next * (1 + (jitter * ((2 * random.NextDouble()) - 1)));
        _next = _next * 2 > max ? max : _next * 2;
        return delay;
    }
}
