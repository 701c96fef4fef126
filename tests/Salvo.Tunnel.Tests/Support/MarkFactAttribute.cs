namespace Salvo.Tunnel.Tests.Support;

/// <summary>A test that sets SO_MARK: Linux, as root (the kernel wants CAP_NET_ADMIN for it).</summary>
public sealed class MarkFactAttribute : FactAttribute
{
    public MarkFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Skip = "SO_MARK needs Linux and root (CAP_NET_ADMIN)";
        }
    }
}
