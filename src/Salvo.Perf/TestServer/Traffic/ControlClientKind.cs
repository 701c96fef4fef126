namespace Salvo.Perf.TestServer.Traffic;

/// <summary>Who opened a connection to <c>salvo server</c>'s TCP port that is not a sockperf client, told from its first byte.</summary>
internal enum ControlClientKind
{
    /// <summary>Salvo's client (its hello is JSON and starts with '{'), anything else that sent a byte, or a peer that closed.</summary>
    Salvo,

    /// <summary>iperf3: its control connection starts with a cookie of lowercase base32 characters.</summary>
    Iperf3,

    /// <summary>Connected and sent nothing within the sorting time (a port scan, <c>nc -z</c> left open).</summary>
    Silent,
}
