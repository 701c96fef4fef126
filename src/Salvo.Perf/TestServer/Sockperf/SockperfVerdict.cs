namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>What a sockperf server does with one complete message (sockperf 3.x server semantics).</summary>
internal enum SockperfVerdict
{
    /// <summary>Counted and sent back with the client flag cleared (a pong request).</summary>
    Reply,

    /// <summary>Counted, not answered (under-load and throughput traffic).</summary>
    Count,

    /// <summary>A warm-up message: neither answered nor counted.</summary>
    Warmup,

    /// <summary>No client flag: another server's message, ignored.</summary>
    NotFromClient,

    /// <summary>A bad header, or (UDP) a length field that is not the datagram's length.</summary>
    Malformed,
}
