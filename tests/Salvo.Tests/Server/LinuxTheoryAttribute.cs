namespace Salvo.Tests;

/// <summary>A theory that needs Linux; skipped with the reason elsewhere.</summary>
public sealed class LinuxTheoryAttribute : TheoryAttribute
{
    public LinuxTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (recvmmsg/sendmmsg, GSO/GRO, SO_REUSEPORT flow spreading, /proc).";
        }
    }
}
