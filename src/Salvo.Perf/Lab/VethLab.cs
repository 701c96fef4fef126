using Salvo.Perf.Platform.Linux;

namespace Salvo.Perf.Lab;

/// <summary>
/// <c>salvo lab</c>'s two namespaces (salvo-lab-&lt;pid&gt;-a and -b): a <see cref="NamespaceLab"/> with permanent
/// neighbour entries on both ends (from fresh namespaces, rr at one in flight once saw no answer within 1 s; none lost
/// with these entries). Disposing deletes both namespaces.
/// </summary>
internal sealed class VethLab : IDisposable
{
    /// <summary>The namespaces' common prefix; the owner's process id follows it.</summary>
    public const string Prefix = "salvo-lab-";

    /// <summary>The sender's and client's address, in A.</summary>
    public const string AddressA = NamespaceLab.AddressA;

    /// <summary>The receiver's and responder's address, in B.</summary>
    public const string AddressB = NamespaceLab.AddressB;

    /// <summary>The veth MTU: Ethernet's, so 1,472 bytes is the largest UDP payload that is not fragmented.</summary>
    public const int Mtu = NamespaceLab.Mtu;

    private readonly NamespaceLab _namespaces;

    public VethLab()
    {
        _namespaces = new NamespaceLab(Prefix, "slv");
        try
        {
            _namespaces.AddPermanentNeighbours();
        }
        catch
        {
            _namespaces.Dispose();
            throw;
        }
    }

    /// <summary>The sending namespace.</summary>
    public string HostA => _namespaces.HostA;

    /// <summary>The receiving namespace.</summary>
    public string HostB => _namespaces.HostB;

    /// <summary>A's end of the veth pair.</summary>
    public string DeviceA => _namespaces.DeviceA;

    /// <summary>B's end of the veth pair, where an AF_XDP socket in B binds.</summary>
    public string DeviceB => _namespaces.DeviceB;

    public void Dispose() => _namespaces.Dispose();
}
