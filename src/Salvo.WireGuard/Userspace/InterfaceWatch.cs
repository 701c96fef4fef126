using System.Net.NetworkInformation;

namespace Salvo.WireGuard.Userspace;

/// <summary>
/// Whether the interface a user-space device serves, and its control socket, are still there: deleting either ends
/// wireguard-go ('ip link del', or 'rm /var/run/wireguard/NAME.sock' where links cannot be deleted, its README says).
/// The interface is looked up through getifaddrs(3) (<see cref="NetworkInterface"/>), which answers for the process's
/// own network namespace whatever /sys shows.
/// </summary>
internal sealed class InterfaceWatch(string interfaceName, string socketPath)
{
    /// <summary>Why the device should end ("interface deleted", "control socket removed"), or null while both are there.</summary>
    public string? Gone()
    {
        if (!NetworkInterface.GetAllNetworkInterfaces().Any(i => i.Name == interfaceName))
        {
            return "interface deleted";
        }

        return File.Exists(socketPath) ? null : "control socket removed";
    }
}
