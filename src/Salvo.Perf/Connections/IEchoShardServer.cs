namespace Salvo.Perf.Connections;

/// <summary>The echo server a <c>salvo connections</c> server shard runs: Salvo's, or the plain .NET one it is measured against.</summary>
internal interface IEchoShardServer : IAsyncDisposable
{
    /// <summary>The port it listens on (shared with the other shards through SO_REUSEPORT).</summary>
    int Port { get; }

    /// <summary>Connections open now.</summary>
    int ConnectionCount { get; }

    /// <summary>Bytes of pinned buffer slabs (0 where there is no pool).</summary>
    long PinnedBytes { get; }

    /// <summary>Pool blocks rented now (0 where there is no pool).</summary>
    long RentedBlocks { get; }

    /// <summary>Connections closed so far, by reason.</summary>
    IReadOnlyDictionary<string, long> ClosedByReason { get; }

    /// <summary>Starts accepting.</summary>
    void Start();
}

/// <summary>The <c>--server</c> option's names.</summary>
internal static class ServerNames
{
    public const string Salvo = "salvo";
    public const string Plain = "plain";
}
