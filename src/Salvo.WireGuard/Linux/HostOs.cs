using System.Runtime.Versioning;

namespace Salvo.WireGuard.Linux;

/// <summary>
/// The daemon's one question about the OS it runs on, asked here only, as the measuring tool's Platform/HostOs does; the
/// guard tells the platform analyser (CA1416) what it proves.
/// </summary>
internal static class HostOs
{
    /// <summary>Whether this is Linux, where the TUN device, rtnetlink and the control socket's folder are.</summary>
    [SupportedOSPlatformGuard("linux")]
    public static bool IsLinux => OperatingSystem.IsLinux();
}
