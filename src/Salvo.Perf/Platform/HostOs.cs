using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Salvo.Perf.Platform;

/// <summary>
/// What the CLI asks about the machine it runs on, answered here only, so that the commands read as what they measure
/// and every OS question has one place. The guards tell the platform analyser (CA1416) what each one proves.
/// </summary>
internal static class HostOs
{
    /// <summary>Whether this is Linux: namespaces, recvmmsg/sendmmsg, io_uring, AF_XDP, /proc and /sys.</summary>
    [SupportedOSPlatformGuard("linux")]
    public static bool IsLinux => OperatingSystem.IsLinux();

    /// <summary>Whether this is Windows.</summary>
    [SupportedOSPlatformGuard("windows")]
    public static bool IsWindows => OperatingSystem.IsWindows();

    /// <summary>Whether this is Linux on x86-64 or arm64, the two whose epoll_event layout the epoll load client knows.</summary>
    [SupportedOSPlatformGuard("linux")]
    public static bool IsLinuxOnX64OrArm64 => OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.Arm64;

    /// <summary>Whether this process runs as root (network namespaces, TUN devices and AF_XDP need it).</summary>
    public static bool IsRoot => Environment.UserName == "root";

    /// <summary>Whether the TUN device node is there (the tun module is loaded).</summary>
    public static bool HasTunDevice => File.Exists("/dev/net/tun");
}
