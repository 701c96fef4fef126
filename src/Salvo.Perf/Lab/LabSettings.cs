namespace Salvo.Perf.Lab;

/// <summary>How <c>salvo lab</c> runs.</summary>
/// <param name="Sizes">Payload sizes of the datagrams/s points.</param>
/// <param name="ParallelLevels">Requests in flight of the request/response points.</param>
/// <param name="RequestBytes">Request and response size.</param>
/// <param name="Seconds">Measured seconds per point.</param>
/// <param name="WarmupSeconds">Unmeasured seconds before each request/response point.</param>
/// <param name="Rounds">Interleaved rounds; each figure is the median over them.</param>
/// <param name="Paths">The paths measured, in turn within each round: kernel, afxdp, c.</param>
/// <param name="CCompiler">The C compiler that builds the C reference (udplimit.c); null when C rows are skipped.</param>
/// <param name="CSkipped">Why the C rows are skipped (--c-reference false, or no C compiler here); null when they run.</param>
/// <param name="SenderCpu">CPU of the sender and client in A.</param>
/// <param name="ReceiverCpu">CPU of the receiver and responder in B.</param>
internal sealed record LabSettings(
    IReadOnlyList<int> Sizes,
    IReadOnlyList<int> ParallelLevels,
    int RequestBytes,
    double Seconds,
    double WarmupSeconds,
    int Rounds,
    IReadOnlyList<string> Paths,
    string? CCompiler,
    string? CSkipped,
    int SenderCpu,
    int ReceiverCpu);
