using System.Net;
using System.Net.NetworkInformation;

namespace Salvo.Perf.Cli;

/// <summary>
/// The one line a refused AF_XDP start prints: which interface, and when the kernel said the interface or its queue is
/// taken (a second `salvo server --backend afxdp` on it), that another AF_XDP program or socket holds it. The library
/// refuses with <see cref="NotSupportedException"/>, which the tool's edge used to print as an internal error.
/// </summary>
internal static class AfXdpStartFailure
{
    /// <summary>
    /// What the library says when the interface is taken: the XDP attach answered EBUSY or EEXIST (net/core/dev.c,
    /// dev_xdp_attach), or the queue's bind answered EBUSY (net/xdp/xsk.c, xsk_bind: the queue has a UMEM already).
    /// </summary>
    private static readonly string[] s_taken = ["already has an XDP program", "another AF_XDP socket holds", "EBUSY", "EEXIST"];

    /// <summary>The error for a start on <paramref name="local"/> refused with <paramref name="refusal"/>.</summary>
    /// <param name="local">The address and port the sockets were to use.</param>
    /// <param name="interfaceName">The interface that holds the address, or null when none was found.</param>
    /// <param name="refusal">The library's refusal.</param>
    public static CliException Describe(IPEndPoint local, string? interfaceName, NotSupportedException refusal)
    {
        var where = interfaceName is null ? $"{local}" : $"{interfaceName} ({local})";
        var taken = s_taken.Any(word => refusal.Message.Contains(word, StringComparison.Ordinal));
        return new CliException(
            taken
                ? $"--backend afxdp: interface {where} is held by another AF_XDP program or socket (another 'salvo server --backend afxdp' on it?); stop that one or bind to another interface. {refusal.Message}"
                : $"--backend afxdp: cannot start on {where}: {refusal.Message}",
            CliException.FailureExitCode);
    }

    /// <summary>The interface that holds <paramref name="address"/>, or null.</summary>
    public static string? InterfaceOf(IPAddress address)
    {
        try
        {
            return NetworkInterface.GetAllNetworkInterfaces()
                .FirstOrDefault(nic => nic.GetIPProperties().UnicastAddresses.Any(unicast => unicast.Address.Equals(address)))?.Name;
        }
        catch (NetworkInformationException)
        {
            return null;
        }
    }
}
