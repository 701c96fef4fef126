using System.Runtime.InteropServices;

namespace Salvo;

/// <summary>Where one datagram lies in a batch's memory, and to or from whom.</summary>
[StructLayout(LayoutKind.Auto)]
internal struct DatagramEntry
{
    public int Offset;
    public int Length;
    public DatagramAddress Address;
    public bool IsTruncated;

    /// <summary>Receive: the local address it was sent to (IP_PKTINFO). Send: the source address to use.</summary>
    public DatagramAddress LocalAddress;
    public int InterfaceIndex;
    public EcnCodepoint Ecn;
}
