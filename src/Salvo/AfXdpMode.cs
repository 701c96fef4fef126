namespace Salvo;

/// <summary>How a <see cref="DatagramBackend.AfXdp"/> socket's frames move between the network driver and the memory it shares with the kernel.</summary>
public enum AfXdpMode
{
    /// <summary>Not an AF_XDP socket.</summary>
    None = 0,

    /// <summary>The kernel copies each frame between the driver's buffers and the shared memory (XDP_COPY): any driver with XDP, veth included.</summary>
    Copy = 1,

    /// <summary>The driver receives into and sends from the shared memory itself (XDP_ZEROCOPY): drivers that support it, on physical NICs.</summary>
    ZeroCopy = 2,
}
