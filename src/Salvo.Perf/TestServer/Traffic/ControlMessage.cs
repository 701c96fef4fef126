namespace Salvo.Perf.TestServer.Traffic;

/// <summary>
/// One line of the TCP control exchange between <c>salvo client</c> and <c>salvo server</c> (JSON, one
/// message per line, at most <see cref="ControlChannel.MaxLineBytes"/> bytes):
/// <code>
/// client -> server  hello   {version, lengthBytes, bitsPerSecond, durationSeconds, parallel, reverse, clientPorts}
/// server -> client  ready   {udpPort}            or  error {reason}
///   forward: client sends UDP, then       client -> server  done   {sent}
///                                         server -> client  result {side}   (the server's receive side)
///   reverse: server sends UDP, then       server -> client  done   {sent, side} (the server's send side)
///                                         client -> server  result {side}   (the client's receive side)
/// </code>
/// </summary>
/// <param name="Type">hello, ready, done, result or error.</param>
/// <param name="Version">Protocol version (hello).</param>
/// <param name="LengthBytes">Datagram size (hello).</param>
/// <param name="BitsPerSecond">Target rate over all flows, 0 = unlimited (hello).</param>
/// <param name="DurationSeconds">Seconds of sending (hello).</param>
/// <param name="Parallel">Flows (hello).</param>
/// <param name="Reverse">Whether the server sends (hello).</param>
/// <param name="ClientPorts">UDP ports the client receives on, one per flow (hello, reverse).</param>
/// <param name="UdpPort">Where the server receives (ready).</param>
/// <param name="Sent">Datagrams sent per flow (done).</param>
/// <param name="Side">One side's counters (result, and done in reverse).</param>
/// <param name="Reason">Why the request was refused (error).</param>
/// <param name="CutShort">
/// True on a done the client sends before -t ran out (Ctrl+C); in reverse the client sends a stop message and the
/// server's done then says true. Absent otherwise, so a server or client without it reads the same messages.
/// </param>
internal sealed record ControlMessage(
    string Type,
    int? Version = null,
    int? LengthBytes = null,
    long? BitsPerSecond = null,
    double? DurationSeconds = null,
    int? Parallel = null,
    bool? Reverse = null,
    int[]? ClientPorts = null,
    int? UdpPort = null,
    long[]? Sent = null,
    SideReport? Side = null,
    string? Reason = null,
    bool? CutShort = null)
{
    /// <summary>The control protocol version.</summary>
    public const int CurrentVersion = 1;

    /// <summary>The most flows one test may ask for.</summary>
    public const int MaxParallel = 128;

    /// <summary>Checks a hello; returns why it is unacceptable, or null.</summary>
    public string? ValidateHello()
    {
        if (Type != "hello")
        {
            return $"expected a hello message, got '{Type}'";
        }

        if (Version != CurrentVersion)
        {
            return $"unsupported control protocol version {Version?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "(none)"}; this server speaks {CurrentVersion}";
        }

        if (LengthBytes is not int length || length < Protocol.PayloadHeader.Size || length > Cli.ValueParsers.MaxUdpPayload)
        {
            return $"lengthBytes must be {Protocol.PayloadHeader.Size}..{Cli.ValueParsers.MaxUdpPayload}";
        }

        if (BitsPerSecond is not long rate || rate < 0)
        {
            return "bitsPerSecond must be 0 (unlimited) or positive";
        }

        if (DurationSeconds is not double seconds || double.IsNaN(seconds) || seconds <= 0 || seconds > 86_400)
        {
            return "durationSeconds must be above 0 and at most 86400";
        }

        if (Parallel is not int parallel || parallel < 1 || parallel > MaxParallel)
        {
            return $"parallel must be 1..{MaxParallel}";
        }

        if (Reverse == true && (ClientPorts is null || ClientPorts.Length != parallel || ClientPorts.Any(p => p is < 1 or > 65_535)))
        {
            return "a reverse test needs one clientPorts entry (1..65535) per flow";
        }

        return null;
    }
}

/// <summary>One side's counters for a test (sender or receiver).</summary>
/// <param name="Role">"sender" or "receiver".</param>
/// <param name="Seconds">How long the side ran.</param>
/// <param name="Datagrams">Datagrams sent or received (valid ones).</param>
/// <param name="Bytes">Payload bytes.</param>
/// <param name="BitsPerSecond">Payload bits per second.</param>
/// <param name="DatagramsPerSecond">Datagrams per second.</param>
/// <param name="Lost">Receiver: datagrams sent and never received (needs the sender's counts).</param>
/// <param name="LossPercent">Receiver: lost / sent.</param>
/// <param name="OutOfOrder">Receiver: datagrams that arrived after a later one.</param>
/// <param name="Duplicates">Receiver: datagrams received twice.</param>
/// <param name="Malformed">Receiver: datagrams that failed the header check.</param>
/// <param name="JitterMicroseconds">Receiver: RFC 3550 interarrival jitter, mean over flows.</param>
/// <param name="CpuPercent">The side's process CPU over the test, percent of one core.</param>
/// <param name="Backend">The backend the side's Salvo sockets reported (LinuxBatched or Portable).</param>
/// <param name="FrameDrops">Receiver on AF_XDP: frames its receive checks dropped (the kernel's UDP receive checks), by reason; null on other backends.</param>
/// <param name="CutShort">True when a stop signal on either end ended the test before -t ran out; absent otherwise.</param>
internal sealed record SideReport(
    string Role,
    double Seconds,
    long Datagrams,
    long Bytes,
    double BitsPerSecond,
    double DatagramsPerSecond,
    long Lost = 0,
    double LossPercent = 0,
    long OutOfOrder = 0,
    long Duplicates = 0,
    long Malformed = 0,
    double JitterMicroseconds = 0,
    double CpuPercent = 0,
    DatagramBackend? Backend = null,
    Dictionary<string, long>? FrameDrops = null,
    bool? CutShort = null);
