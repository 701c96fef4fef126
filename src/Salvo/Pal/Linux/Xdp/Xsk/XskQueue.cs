using System.Runtime.Versioning;

namespace Salvo.Pal;

/// <summary>One receive queue of the interface: its AF_XDP socket and the UMEM that socket alone uses.</summary>
[SupportedOSPlatform("linux")]
internal sealed class XskQueue(XskSocket socket, XdpUmem umem) : IDisposable
{
    public XskSocket Socket { get; } = socket;

    public XdpUmem Umem { get; } = umem;

    public void Dispose()
    {
        // The socket first: the kernel lets go of the UMEM's pages when it closes.
        Socket.Dispose();
        Umem.Dispose();
    }
}
