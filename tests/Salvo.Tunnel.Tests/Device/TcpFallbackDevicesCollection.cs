namespace Salvo.Tunnel.Tests.Device;

/// <summary>
/// Device pairs whose peers talk only over the TCP fallback take turns: two at once (each dialing, each listening on
/// its UDP port's number) made one of them count dropped frames (26 in one run) on the 2-core test machine. They
/// also run apart from every other test: <see cref="TcpFallbackAllocationTests"/> reads the process's allocation
/// counter, which other tests running beside it pushed past its bound (under full-suite load, once).
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TcpFallbackDevicesCollection
{
    public const string Name = "TCP fallback devices";
}
