namespace Salvo.Tests;

/// <summary>A fact that needs Linux; skipped with the reason elsewhere.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Needs Linux (recvmmsg/sendmmsg, /proc).";
        }
    }
}
