using Salvo.Perf.Measurement;

namespace Salvo.Perf.Lab;

/// <summary>What <c>salvo lab --json</c> prints.</summary>
/// <param name="Command">"lab".</param>
/// <param name="Environment">Where it ran, with the load average at the start.</param>
/// <param name="Settings">How it ran.</param>
/// <param name="Placement">Where each end ran: namespaces and CPUs.</param>
/// <param name="Rates">Datagrams/s points: each receiver at each size, in the order measured within a round.</param>
/// <param name="RequestResponse">Request/response points: each path at each level in flight.</param>
/// <param name="LoadAverageAtEnd">The load average when the last round ended.</param>
internal sealed record LabReport(
    string Command, EnvironmentInfo Environment, LabSettings Settings, string Placement, IReadOnlyList<LabRatePoint> Rates, IReadOnlyList<LabRrPoint> RequestResponse, string LoadAverageAtEnd);

/// <summary>One receiver at one payload size: medians over the rounds that measured it.</summary>
/// <param name="Receiver">kernel (Salvo, recvmmsg), afxdp (Salvo, AF_XDP) or c (udplimit recv -m recvmmsg).</param>
/// <param name="PayloadBytes">UDP payload of every datagram.</param>
/// <param name="DatagramsPerSecond">Datagrams the receiver took per second of its window; null when not measured.</param>
/// <param name="CpuNanosecondsPerDatagram">The receiving process's user + system CPU over its window per datagram, in nanoseconds; null when not measured.</param>
/// <param name="Backend">The backend the receiving socket used, as it reported it (C: recvmmsg).</param>
/// <param name="DatagramsPerSecondSamples">Each round's figure.</param>
/// <param name="CpuSamples">Each round's CPU per datagram.</param>
/// <param name="NotMeasured">Why there is no figure (the receiver refused to start, or received nothing); null when measured.</param>
internal sealed record LabRatePoint(
    string Receiver,
    int PayloadBytes,
    double? DatagramsPerSecond,
    double? CpuNanosecondsPerDatagram,
    string? Backend,
    IReadOnlyList<double> DatagramsPerSecondSamples,
    IReadOnlyList<double> CpuSamples,
    string? NotMeasured);

/// <summary>One request/response path at one level in flight: medians over the rounds that measured it.</summary>
/// <param name="Path">kernel (salvo rr against salvo server, both on recvmmsg/sendmmsg), afxdp (both on AF_XDP) or c (udplimit ppclient against ppserver).</param>
/// <param name="Parallel">Requests in flight.</param>
/// <param name="RequestsPerSecond">Completed requests per second; null when not measured.</param>
/// <param name="P50Microseconds">Median round trip.</param>
/// <param name="P99Microseconds">99th percentile round trip.</param>
/// <param name="RequestsPerSecondSamples">Each round's figure.</param>
/// <param name="NotMeasured">Why there is no figure; null when measured.</param>
internal sealed record LabRrPoint(
    string Path,
    int Parallel,
    double? RequestsPerSecond,
    double? P50Microseconds,
    double? P99Microseconds,
    IReadOnlyList<double> RequestsPerSecondSamples,
    string? NotMeasured);
