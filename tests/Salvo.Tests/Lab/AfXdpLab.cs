using System.Net;
using System.Runtime.Versioning;

namespace Salvo.Tests.Lab;

/// <summary>Opening sockets for the AF_XDP tests: in one host of the lab, bound to its veth address (AF_XDP needs an interface's own address).</summary>
public static class AfXdpLab
{
    /// <summary>Why the AF_XDP lab tests cannot run here, or null.</summary>
    public static string? WhyUnavailable()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "AF_XDP needs Linux";
        }

        return NetworkLab.WhyUnavailable() ?? (DatagramSocket.IsBackendAvailable(DatagramBackend.AfXdp, out var reason) ? null : reason);
    }

    [SupportedOSPlatform("linux")]
    public static DatagramSocket Open(string host, string address, DatagramBackend backend, bool busyPoll = false, int port = 0) =>
        NetworkLab.InHost(host, () => new DatagramSocket(new DatagramSocketOptions
        {
            LocalEndPoint = new IPEndPoint(IPAddress.Parse(address), port),
            Backend = backend,
            ReceiveBufferSize = 4 << 20,
            AfXdpBusyPoll = busyPoll,
        }));
}
