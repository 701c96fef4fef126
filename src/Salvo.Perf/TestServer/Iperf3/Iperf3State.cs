namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// The one-byte states iperf3 writes on its control connection (a signed char). Values as iperf3 3.12
/// sends them, confirmed with tcpdump on loopback: 9 after the cookie, 10 after the parameters, 1 and 2
/// once every stream is connected, 4 from the client at the end, 13, 14, then 16 from the client.
/// </summary>
internal enum Iperf3State : sbyte
{
    /// <summary>Every stream is connected; the test is about to run.</summary>
    TestStart = 1,

    /// <summary>Start sending.</summary>
    TestRunning = 2,

    /// <summary>The client's timer ran out: stop sending.</summary>
    TestEnd = 4,

    /// <summary>Send the parameters JSON.</summary>
    ParamExchange = 9,

    /// <summary>Connect the data streams.</summary>
    CreateStreams = 10,

    /// <summary>The server gave up (for example Ctrl+C).</summary>
    ServerTerminate = 11,

    /// <summary>The client gave up.</summary>
    ClientTerminate = 12,

    /// <summary>Swap the results JSON: the client sends first.</summary>
    ExchangeResults = 13,

    /// <summary>Print the summary.</summary>
    DisplayResults = 14,

    /// <summary>The client has printed; the server may close.</summary>
    IperfDone = 16,

    /// <summary>The server is busy or refused the client; nothing follows.</summary>
    AccessDenied = -1,

    /// <summary>The server failed: two 4-byte big-endian numbers follow (iperf3's error code, then errno).</summary>
    ServerError = -2,
}
