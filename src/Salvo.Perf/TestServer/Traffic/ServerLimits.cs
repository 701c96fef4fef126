namespace Salvo.Perf.TestServer.Traffic;

/// <summary>
/// How long <c>salvo server</c> waits for a client at each step before the connection goes, and how many
/// connections it holds at once, so that no client, silent or slow, can keep the one test slot or the
/// server's memory from the next.
/// </summary>
internal sealed record ServerLimits
{
    /// <summary>Connections accepted on the TCP port not yet sorted (by their first bytes) or not through their handshake; one more is closed at once.</summary>
    public const int DefaultMaxPending = 1024;

    /// <summary>
    /// How long a connection may stay silent before it is closed: a sockperf 3.7 TCP client connects and waits
    /// 2 s before its first message (seen on the wire), so this is well above that.
    /// </summary>
    public TimeSpan SortTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// From a control connection's first byte to a complete Salvo hello, or to iperf3's cookie and parameters:
    /// both clients send them at once (iperf3 writes its parameters on the state that asks for them), so a
    /// client that has not within this is not a working client and never gets the test slot.
    /// </summary>
    public TimeSpan HandshakeTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long a client whose handshake is through waits for the test slot before it is told the server is
    /// busy: long enough for the test before it to print its report when clients run back to back.
    /// </summary>
    public TimeSpan BusyGrace { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>See <see cref="DefaultMaxPending"/>.</summary>
    public int MaxPending { get; init; } = DefaultMaxPending;

    /// <summary>A sockperf TCP connection with nothing received for this long is closed; <see cref="TimeSpan.Zero"/> = never (--sockperf-idle-timeout).</summary>
    public TimeSpan SockperfIdleTimeout { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>sockperf TCP connections open at once; one more is closed at once (--sockperf-max-connections), the echo service's cap.</summary>
    public int SockperfMaxConnections { get; init; } = 1024;
}
