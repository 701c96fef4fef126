using System.Reflection;
using System.Runtime.Versioning;
using Salvo.Pal;

namespace Salvo.Tests.Architecture;

/// <summary>
/// Public API that works only on Linux says so with [SupportedOSPlatform("linux")], so the platform analyzer (CA1416)
/// tells every caller that is not guarded; the portable platform refuses the same things at run time.
/// </summary>
public sealed class LinuxOnlyApiTests
{
    [Fact]
    public void LinuxOnlyMembers_CarryTheLinuxPlatformAttribute()
    {
        var options = typeof(DatagramSocketOptions);
        MemberInfo[] linuxOnly =
        [
            typeof(DatagramBackend).GetField("LinuxBatched")!,
            typeof(DatagramBackend).GetField("IoUring")!,
            options.GetProperty(nameof(DatagramSocketOptions.ReceivePacketInformation))!.SetMethod!,
            options.GetProperty(nameof(DatagramSocketOptions.ReceiveEcn))!.SetMethod!,
        ];

        var unmarked = linuxOnly
            .Where(member => member.GetCustomAttribute<SupportedOSPlatformAttribute>()?.PlatformName != "linux")
            .Select(member => $"{member.DeclaringType!.Name}.{member.Name}")
            .ToList();

        Assert.Empty(unmarked);
    }

    [Fact]
    public void PortablePlatform_RefusesEveryBackendButAutoAndPortable_NamingIt()
    {
        var platform = new PortablePlatform();

        var refused = Enum.GetValues<DatagramBackend>().Where(backend => platform.RefuseBackend(backend) is not null).ToList();

        Assert.Equal(Enum.GetValues<DatagramBackend>().Except([DatagramBackend.Auto, DatagramBackend.Portable]), refused);
        Assert.NotEmpty(refused);
        Assert.All(refused, backend => Assert.StartsWith($"Backend {backend} needs Linux", platform.RefuseBackend(backend), StringComparison.Ordinal));
    }
}
