using System.Runtime.Versioning;

namespace Salvo.Perf.Doctor;

/// <summary>
/// Whether Salvo's AF_XDP backend runs here: the library probes it once per process (an AF_XDP socket opened, the
/// privileges to load and attach an XDP program) and keeps why not.
/// </summary>
internal static class AfXdpBackendProbe
{
    public const string Check = "salvo AF_XDP backend";

    /// <summary>Why the AF_XDP backend cannot run here; null when it can.</summary>
    [SupportedOSPlatform("linux")]
    public static string? Refusal => DatagramSocket.IsBackendAvailable(DatagramBackend.AfXdp, out var reason) ? null : reason;

    [SupportedOSPlatform("linux")]
    public static Finding Run() => Refusal is { } why
        ? new Finding(Check, FindingStatus.Info, $"unavailable: {why}",
            "--backend afxdp (salvo server) needs root or CAP_NET_ADMIN, CAP_BPF and CAP_NET_RAW, and a kernel with CONFIG_XDP_SOCKETS.")
        : new Finding(Check, FindingStatus.Ok, "available (salvo server --backend afxdp: one worker, bound to an interface's own address)");
}
