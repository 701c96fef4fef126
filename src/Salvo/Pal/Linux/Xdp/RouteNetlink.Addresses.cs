using System.Buffers.Binary;
using System.Net;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Pal;

/// <summary>One IPv4 address of this host (RTM_GETADDR) and the broadcast address of its subnet, when it has one.</summary>
internal sealed record HostIPv4Address(IPAddress Address, IPAddress? SubnetBroadcast);

internal sealed partial class RouteNetlink
{
    // AF_INET, as ifa_family carries it.
    private const byte FamilyIPv4 = 2;

    /// <summary>Every IPv4 address on every interface of this network namespace: what the kernel's local table holds.</summary>
    public IReadOnlyList<HostIPv4Address> ListIPv4Addresses()
    {
        var replies = new List<(ushort Type, byte[] Body)>();
        Check(Exchange(RTM_GETADDR, dump: true, new IfAddrMsg { Family = FamilyIPv4 }, [], replies), "listing addresses");
        var headerLength = Marshal.SizeOf<IfAddrMsg>();
        var addresses = new List<HostIPv4Address>();
        foreach (var (type, body) in replies)
        {
            if (type != RTM_NEWADDR || body.Length < headerLength)
            {
                continue;
            }

            var message = MemoryMarshal.Read<IfAddrMsg>(body);
            var attributes = body.AsSpan(headerLength);
            if (message.Family != FamilyIPv4 ||
                !(NetlinkAttributes.TryFind(attributes, IFA_LOCAL, out var local) || NetlinkAttributes.TryFind(attributes, IFA_ADDRESS, out local)) ||
                local.Length != 4)
            {
                continue;
            }

            addresses.Add(new HostIPv4Address(new IPAddress(local), SubnetBroadcast(local, message.PrefixLength, attributes)));
        }

        return addresses;
    }

    /// <summary>
    /// The address's subnet broadcast: IFA_BROADCAST when set, else the top of its prefix, for which the kernel adds an
    /// RTN_BROADCAST route whenever the prefix is shorter than 31 bits (net/ipv4/fib_frontend.c, fib_add_ifaddr).
    /// </summary>
    private static IPAddress? SubnetBroadcast(ReadOnlySpan<byte> local, int prefixLength, ReadOnlySpan<byte> attributes)
    {
        if (NetlinkAttributes.TryFind(attributes, IFA_BROADCAST, out var broadcast) && broadcast.Length == 4)
        {
            return new IPAddress(broadcast);
        }

        if (prefixLength >= 31)
        {
            return null;
        }

        Span<byte> bytes = stackalloc byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(bytes, BinaryPrimitives.ReadUInt32BigEndian(local) | (uint.MaxValue >> prefixLength));
        return new IPAddress(bytes);
    }
}
