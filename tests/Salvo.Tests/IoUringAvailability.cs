using Salvo.Pal;

namespace Salvo.Tests;

/// <summary>Why the io_uring backend cannot run here (not Linux, or what the kernel refused); null when it can.</summary>
public static class IoUringAvailability
{
    public static string? Unavailable =>
        !OperatingSystem.IsLinux() ? "needs io_uring (kernel 5.19+) on Linux" :
        LinuxPlatform.IoUringRefusal is string refusal ? $"needs io_uring (kernel 5.19+): {refusal}" : null;
}
