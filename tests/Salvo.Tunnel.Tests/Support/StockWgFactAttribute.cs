namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A test that drives a control socket with the stock wg tool: Linux, root (wg finds user-space devices only under
/// /var/run/wireguard, which root owns) and wg installed.
/// </summary>
public sealed class StockWgFactAttribute : FactAttribute
{
    public StockWgFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Skip = "wg reaches user-space devices through /var/run/wireguard: needs Linux and root";
        }
        else if (ExternalTool.Find("wg") is null)
        {
            Skip = "wg is not installed (apt-get install wireguard-tools)";
        }
    }
}
