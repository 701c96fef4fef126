using System.Runtime.Versioning;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Doctor;

/// <summary>
/// Whether Salvo's io_uring backend runs here: the library probes it once per process and keeps what the kernel
/// refused (the backend then falls back to LinuxBatched).
/// </summary>
internal static class IoUringProbe
{
    /// <summary>Why the io_uring backend cannot run here (not Linux, or what the kernel refused); null when it can.</summary>
    public static string? Refusal => !HostOs.IsLinux ? "needs Linux" :
        DatagramSocket.IsBackendAvailable(DatagramBackend.IoUring, out var reason) ? null : reason;

    [SupportedOSPlatform("linux")]
    public static Finding Run() => Refusal is { } why
        ? new Finding("salvo io_uring backend", FindingStatus.Info, $"falls back to {DatagramBackend.LinuxBatched}: {why}",
            "--backend uring measures the batched backend here; io_uring needs kernel.io_uring_disabled = 0 and Linux 6.0 (multishot recvmsg).")
        : new Finding("salvo io_uring backend", FindingStatus.Ok, "runs (multishot recvmsg with provided-buffer rings, linked sendmsg)");
}
