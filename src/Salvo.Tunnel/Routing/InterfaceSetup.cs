using Salvo.Tunnel.Pal;

namespace Salvo.Tunnel.Routing;

/// <summary>The platform's <see cref="IInterfaceSetup"/>: rtnetlink on Linux.</summary>
public static class InterfaceSetup
{
    /// <summary>RT_TABLE_MAIN (include/uapi/linux/rtnetlink.h): where routes go without a Table key.</summary>
    public const uint MainTable = 254;

    /// <summary>Opens the setup of this process's network namespace; dispose it once the interface is configured.</summary>
    /// <exception cref="PlatformNotSupportedException">The platform has no routing tables this tunnel can write.</exception>
    /// <exception cref="InterfaceSetupException">The kernel's routing socket could not be opened.</exception>
    public static IInterfaceSetup Open() => TunnelPlatform.Current.OpenInterfaceSetup();
}
