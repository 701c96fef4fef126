using System.Reflection;
using System.Runtime.Versioning;

namespace Salvo.Tunnel.Tests.Device;

public sealed class KernelTunDeviceTests
{
    [Fact]
    public void KernelTunDevice_IsMarkedLinuxOnly_ForThePlatformAnalyzer()
    {
        Assert.Equal("linux", typeof(KernelTunDevice).GetCustomAttribute<SupportedOSPlatformAttribute>()?.PlatformName);
    }
}
