using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Pal;

/// <summary>What the kernel says about one network interface (RTM_GETLINK).</summary>
/// <param name="Index">The interface index.</param>
/// <param name="Name">The interface name.</param>
/// <param name="Address">Its own Ethernet address (zero for a link without one, such as lo).</param>
/// <param name="Mtu">Its MTU in bytes.</param>
/// <param name="RxQueues">Its receive queue count (IFLA_NUM_RX_QUEUES): the XSKMAP's size.</param>
/// <param name="XdpAttached">IFLA_XDP_ATTACHED: 0 none, 1 driver (native), 2 generic (skb), 3 offloaded, 4 several.</param>
/// <param name="XdpProgramId">The attached XDP program's id, 0 when none.</param>
internal sealed record NetworkInterfaceInfo(int Index, string Name, MacAddress Address, int Mtu, int RxQueues, byte XdpAttached, uint XdpProgramId)
{
    /// <summary>The attached XDP program in words, as the refusal to attach a second one names it.</summary>
    public string DescribeXdp() => XdpAttached switch
    {
        XDP_ATTACHED_NONE => "none",
        XDP_ATTACHED_DRV => $"program id {XdpProgramId} in driver (native) mode",
        XDP_ATTACHED_SKB => $"program id {XdpProgramId} in generic (skb) mode",
        XDP_ATTACHED_HW => $"program id {XdpProgramId} offloaded to the device",
        _ => "programs in more than one mode",
    };
}

/// <summary>The kernel's route to a destination (RTM_GETROUTE): the interface, the gateway when off-link, the source it would pick.</summary>
internal sealed record RouteInfo(int OutputInterface, IPAddress? Gateway, IPAddress? PreferredSource);

internal sealed partial class RouteNetlink
{
    /// <summary>The interface with index <paramref name="index"/>, or null when there is none.</summary>
    public NetworkInterfaceInfo? GetLink(int index) => GetLink(index, []);

    /// <summary>The interface named <paramref name="name"/>, or null when there is none.</summary>
    public NetworkInterfaceInfo? GetLink(string name)
    {
        // IFNAMSIZ is 16 with the terminating NUL (include/uapi/linux/if.h): a longer name names no interface.
        if (name.Length is 0 or > 15)
        {
            return null;
        }

        Span<byte> attributes = stackalloc byte[32];
        Span<byte> text = stackalloc byte[17];
        text.Clear();
        var written = Encoding.ASCII.GetBytes(name, text[..16]);
        var end = NetlinkAttributes.Write(attributes, 0, IFLA_IFNAME, text[..(written + 1)]);
        return GetLink(0, attributes[..end]);
    }

    /// <summary>The index of the interface that holds <paramref name="local"/>, or 0 when none does.</summary>
    public int FindInterfaceOf(IPAddress local)
    {
        _ = AddressBytes(local, out var family);
        var replies = new List<(ushort Type, byte[] Body)>();
        Check(Exchange(RTM_GETADDR, dump: true, new IfAddrMsg { Family = family }, [], replies), "listing addresses");
        var headerLength = Marshal.SizeOf<IfAddrMsg>();
        foreach (var (type, body) in replies)
        {
            if (type != RTM_NEWADDR || body.Length < headerLength)
            {
                continue;
            }

            var message = MemoryMarshal.Read<IfAddrMsg>(body);
            var attributes = body.AsSpan(headerLength);
            // IFA_LOCAL is the interface's own address on point-to-point links, where IFA_ADDRESS is the peer's.
            if (message.Family == family &&
                ((NetlinkAttributes.TryFind(attributes, IFA_LOCAL, out var address) && Matches(address, local)) ||
                 (NetlinkAttributes.TryFind(attributes, IFA_ADDRESS, out address) && Matches(address, local))))
            {
                return message.Index;
            }
        }

        return 0;
    }

    /// <summary>The route the kernel would take to <paramref name="destination"/>.</summary>
    /// <exception cref="InvalidOperationException">No route: the kernel's errno (ENETUNREACH) in the message.</exception>
    public RouteInfo GetRoute(IPAddress destination)
    {
        var bytes = AddressBytes(destination, out var family);
        Span<byte> attributes = stackalloc byte[24];
        var end = NetlinkAttributes.Write(attributes, 0, RTA_DST, bytes);
        var replies = new List<(ushort Type, byte[] Body)>();
        var request = new RtMsg { Family = family, DestinationLength = (byte)(bytes.Length * 8) };
        Check(Exchange(RTM_GETROUTE, dump: false, request, attributes[..end], replies), $"finding the route to {destination}");
        var headerLength = Marshal.SizeOf<RtMsg>();
        foreach (var (type, body) in replies)
        {
            if (type != RTM_NEWROUTE || body.Length < headerLength)
            {
                continue;
            }

            var routeAttributes = body.AsSpan(headerLength);
            var outputInterface = NetlinkAttributes.TryFind(routeAttributes, RTA_OIF, out var oif) && oif.Length >= 4 ? MemoryMarshal.Read<int>(oif) : 0;
            IPAddress? gateway = NetlinkAttributes.TryFind(routeAttributes, RTA_GATEWAY, out var via) ? new IPAddress(via) : null;
            IPAddress? source = NetlinkAttributes.TryFind(routeAttributes, RTA_PREFSRC, out var from) ? new IPAddress(from) : null;
            return new RouteInfo(outputInterface, gateway, source);
        }

        throw new InvalidOperationException($"The kernel answered no route to {destination}.");
    }

    /// <summary>
    /// The link-layer address of <paramref name="address"/> on interface <paramref name="ifIndex"/>, from an entry
    /// that has one (reachable, stale, delay, probe, permanent or noarp), or null when the table has none.
    /// </summary>
    public MacAddress? GetNeighbour(IPAddress address, int ifIndex)
    {
        var wanted = AddressBytes(address, out var family);
        var replies = new List<(ushort Type, byte[] Body)>();
        Check(Exchange(RTM_GETNEIGH, dump: true, new NdMsg { Family = family }, [], replies), "listing neighbours");
        var headerLength = Marshal.SizeOf<NdMsg>();
        const ushort Usable = NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP;
        foreach (var (type, body) in replies)
        {
            if (type != RTM_NEWNEIGH || body.Length < headerLength)
            {
                continue;
            }

            var message = MemoryMarshal.Read<NdMsg>(body);
            var attributes = body.AsSpan(headerLength);
            if (message.IfIndex == ifIndex && (message.State & Usable) != 0 &&
                NetlinkAttributes.TryFind(attributes, NDA_DST, out var destination) && destination.SequenceEqual(wanted) &&
                NetlinkAttributes.TryFind(attributes, NDA_LLADDR, out var linkLayer) && linkLayer.Length == MacAddress.Length)
            {
                return MacAddress.Read(linkLayer);
            }
        }

        return null;
    }

    private NetworkInterfaceInfo? GetLink(int index, ReadOnlySpan<byte> attributes)
    {
        var replies = new List<(ushort Type, byte[] Body)>();
        var errno = Exchange(RTM_GETLINK, dump: false, new IfInfoMsg { Index = index }, attributes, replies);
        if (errno == Errno.ENODEV)
        {
            return null;
        }

        Check(errno, $"reading interface {index}");
        var headerLength = Marshal.SizeOf<IfInfoMsg>();
        foreach (var (type, body) in replies)
        {
            if (type != RTM_NEWLINK || body.Length < headerLength)
            {
                continue;
            }

            var message = MemoryMarshal.Read<IfInfoMsg>(body);
            var linkAttributes = body.AsSpan(headerLength);
            var name = NetlinkAttributes.TryFind(linkAttributes, IFLA_IFNAME, out var nameBytes) ? Encoding.ASCII.GetString(nameBytes.TrimEnd((byte)0)) : string.Empty;
            var mac = NetlinkAttributes.TryFind(linkAttributes, IFLA_ADDRESS, out var macBytes) && macBytes.Length == MacAddress.Length ? MacAddress.Read(macBytes) : default;
            var mtu = ReadInt(linkAttributes, IFLA_MTU);
            var queues = ReadInt(linkAttributes, IFLA_NUM_RX_QUEUES);
            byte attached = 0;
            uint program = 0;
            if (NetlinkAttributes.TryFind(linkAttributes, IFLA_XDP, out var xdp))
            {
                attached = NetlinkAttributes.TryFind(xdp, IFLA_XDP_ATTACHED, out var mode) && mode.Length >= 1 ? mode[0] : (byte)0;
                program = (uint)ReadInt(xdp, IFLA_XDP_PROG_ID);
            }

            return new NetworkInterfaceInfo(message.Index, name, mac, mtu, queues, attached, program);
        }

        return null;
    }

    private static int ReadInt(ReadOnlySpan<byte> attributes, ushort type) =>
        NetlinkAttributes.TryFind(attributes, type, out var value) && value.Length >= 4 ? MemoryMarshal.Read<int>(value) : 0;

    private static bool Matches(ReadOnlySpan<byte> address, IPAddress wanted)
    {
        Span<byte> bytes = stackalloc byte[16];
        return wanted.TryWriteBytes(bytes, out var written) && address.SequenceEqual(bytes[..written]);
    }

    private static byte[] AddressBytes(IPAddress address, out byte family)
    {
        if (address.IsIPv4MappedToIPv6)
        {
            address = address.MapToIPv4();
        }

        family = address.AddressFamily == AddressFamily.InterNetwork ? (byte)2 : (byte)10;
        return address.GetAddressBytes();
    }

    private static void Check(Errno errno, string what)
    {
        if (errno != Errno.None)
        {
            throw new InvalidOperationException($"rtnetlink refused {what}: {errno}.");
        }
    }
}
