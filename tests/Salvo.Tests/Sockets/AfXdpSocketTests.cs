using System.Net;
using System.Runtime.Versioning;
using Salvo.Tests.Lab;
using Salvo.Tests.Xdp;

namespace Salvo.Tests.Sockets;

/// <summary>
/// The contract on AF_XDP over the two-host lab: the sockets a test opens alternate between host A, on AF_XDP, and host B,
/// a kernel socket, so a receiver and the sender it hears from (opened in that order) talk across the veth through the
/// program and the rings. Tests that bind other addresses or need two AF_XDP sockets on one interface are skipped with why.
/// </summary>
[RequiresAfXdpLab]
[Collection(NonParallelCollection.Name)]
[SupportedOSPlatform("linux")]
public sealed class AfXdpSocketTests : DatagramSocketContractTests, IDisposable
{
    private NetworkLab? _lab;
    private int _opened;

    protected override DatagramBackend Backend => DatagramBackend.AfXdp;

    protected override DatagramSocket Open(IPAddress? address = null, int? receiveBuffer = 4 << 20)
    {
        _lab ??= new NetworkLab();
        return _opened++ % 2 == 0
            ? AfXdpLab.Open(_lab.HostA, NetworkLab.AddressA, DatagramBackend.AfXdp)
            : AfXdpLab.Open(_lab.HostB, NetworkLab.AddressB, DatagramBackend.LinuxBatched);
    }

    public void Dispose() => _lab?.Dispose();
}
