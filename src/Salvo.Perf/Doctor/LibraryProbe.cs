using System.Net;

namespace Salvo.Perf.Doctor;

/// <summary>
/// What Salvo itself will use on this host: the backend and offloads a <see cref="DatagramSocket"/> reports,
/// from the library's own loopback probe (run once per process), so doctor and the library never disagree.
/// </summary>
internal static class LibraryProbe
{
    public static Finding Run()
    {
        using var socket = DatagramSocket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var capabilities = socket.Capabilities;
        var value = $"backend {socket.Backend}; batched I/O {OnOff(capabilities.BatchedIo)}, GSO {OnOff(capabilities.Gso)}" +
                    (capabilities.Gso ? $" (up to {capabilities.MaxGsoSegments} segments)" : string.Empty) + $", GRO {OnOff(capabilities.Gro)}";
        if (capabilities.BatchedIo && capabilities.Gso && capabilities.Gro)
        {
            return new Finding("salvo library probe", FindingStatus.Ok, value);
        }

        var missing = !capabilities.BatchedIo
            ? "Salvo uses its portable backend here: one datagram per system call."
            : "Salvo falls back to plain batches for what is off; a kernel with UDP GSO (4.18+) and GRO (5.0+) moves several times more datagrams per core.";
        return new Finding("salvo library probe", FindingStatus.Warn, value, missing);
    }

    private static string OnOff(bool on) => on ? "on" : "off";
}
