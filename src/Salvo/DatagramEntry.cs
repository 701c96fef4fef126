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
}
