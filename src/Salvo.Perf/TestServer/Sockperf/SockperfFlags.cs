namespace Salvo.Perf.TestServer.Sockperf;

/// <summary>The flag bits of a sockperf message header (uint16 at offset 8).</summary>
[Flags]
internal enum SockperfFlags : ushort
{
    /// <summary>No flag: a message from a server.</summary>
    None = 0,

    /// <summary>Sent by a client; a server answers only messages that carry it.</summary>
    Client = 1,

    /// <summary>The client wants this message back (every ping-pong message; one in --reply-every under load).</summary>
    PongRequest = 2,

    /// <summary>A warm-up message: neither answered nor counted.</summary>
    Warmup = 4,

    /// <summary>Every bit sockperf 3.x defines; a header with any other bit set is not sockperf's.</summary>
    Known = Client | PongRequest | Warmup,
}
