namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>What the first bytes of a connection say.</summary>
internal enum SockperfSniff
{
    /// <summary>Not enough bytes yet.</summary>
    NeedMore,

    /// <summary>A sockperf client.</summary>
    Sockperf,

    /// <summary>Something else (Salvo's control channel).</summary>
    Other,
}
