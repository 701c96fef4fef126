namespace Salvo.Perf.TestServer.Iperf3;

/// <summary>
/// What a server sends after <see cref="Iperf3State.ServerError"/>: iperf3's error code and an errno. The
/// client prints its own text for the code (iperf_error.c), followed by strerror(errno) for the codes
/// that carry one, so these two numbers are all a refusal can say on the client's screen.
/// </summary>
/// <param name="Code">iperf3's i_errno (iperf_api.h).</param>
/// <param name="Errno">A Linux errno (asm-generic/errno.h), or 0.</param>
internal readonly record struct Iperf3Error(int Code, int Errno)
{
    /// <summary>IEUNIMP (13): the client prints "an option you are trying to set is not implemented yet".</summary>
    public static Iperf3Error NotImplemented => new(13, 0);

    /// <summary>
    /// IEINITTEST (101) with EPROTONOSUPPORT (93): the client prints "test initialization failed: Protocol not
    /// supported". IEPROTOCOL (131) prints "protocol does not exist", which reads as a bug in the client.
    /// </summary>
    public static Iperf3Error ProtocolNotSupported => new(101, 93);

    /// <summary>The line iperf3 3.12 prints for this error, for our own messages.</summary>
    public string Describe() => this switch
    {
        { Code: 13 } => "an option you are trying to set is not implemented yet",
        { Code: 101, Errno: 93 } => "test initialization failed: Protocol not supported",
        _ => $"iperf3 error {Code}{(Errno != 0 ? $", errno {Errno}" : string.Empty)}",
    };
}
