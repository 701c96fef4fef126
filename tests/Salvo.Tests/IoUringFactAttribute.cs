using Salvo.Pal;

namespace Salvo.Tests;

/// <summary>A fact that needs the io_uring backend; skipped with the kernel's refusal where it is not there.</summary>
public sealed class IoUringFactAttribute : FactAttribute
{
    public IoUringFactAttribute()
    {
        if (IoUringAvailability.Unavailable is string reason)
        {
            Skip = reason;
        }
    }
}

/// <summary>A theory that needs the io_uring backend; skipped with the kernel's refusal where it is not there.</summary>
public sealed class IoUringTheoryAttribute : TheoryAttribute
{
    public IoUringTheoryAttribute()
    {
        if (IoUringAvailability.Unavailable is string reason)
        {
            Skip = reason;
        }
    }
}

/// <summary>Why the io_uring backend cannot run here (not Linux, or what the kernel refused); null when it can.</summary>
public static class IoUringAvailability
{
    public static string? Unavailable =>
        !OperatingSystem.IsLinux() ? "Needs Linux (io_uring)." :
        LinuxPlatform.IoUringRefusal is string refusal ? $"io_uring is not available here: {refusal}." : null;
}
