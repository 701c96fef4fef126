using System.Globalization;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Salvo.Interop.Linux;
using Salvo.Tunnel.Configuration;
using Salvo.Tunnel.Routing;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Tunnel.Pal;

/// <summary>
/// A tunnel interface's addresses, MTU and routes over rtnetlink (the one codec in src/Common), many RTM_NEWROUTE
/// messages per send, each acknowledged and checked by its sequence number. One 'ip route' process per prefix added
/// about 80 routes a second, so 20,000 prefixes took over four minutes; the kernel takes the same routes here in well
/// under a second.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class NetlinkInterfaceSetup : IInterfaceSetup
{
    /// <summary>
    /// Requests per send. Each acknowledgement waits in the socket's receive queue until read, at about 1 KB of
    /// buffer accounting each (skb truesize); 128 of them fit the default 208 KiB even where raising it is refused.
    /// </summary>
    public const int Batch = 128;

    private const int ReceiveBufferSize = 1 << 20;

    private readonly NetlinkSocket _socket;
    private readonly byte[] _requests = new byte[Batch * RouteMessages.MaxRequestSize];
    private readonly byte[] _answers = new byte[64 * 1024];

    private NetlinkInterfaceSetup(NetlinkSocket socket) => _socket = socket;

    /// <summary>Opens a NETLINK_ROUTE socket in this thread's network namespace.</summary>
    public static NetlinkInterfaceSetup Open()
    {
        NetlinkSocket socket;
        try
        {
            socket = NetlinkSocket.Open();
        }
        catch (InvalidOperationException e)
        {
            throw new InterfaceSetupException($"cannot open a netlink socket to add routes: {e.Message}", e);
        }

        // A nicety: where it is refused the batch stays small enough for the default buffer (see Batch).
        socket.ForceReceiveBuffer(ReceiveBufferSize);
        return new NetlinkInterfaceSetup(socket);
    }

    public void Dispose() => _socket.Dispose();

    public void RefuseRoutesInTheWay(IReadOnlyCollection<IPPrefix> prefixes, uint table, string? interfaceName)
    {
        ArgumentNullException.ThrowIfNull(prefixes);
        RoutesInTheWay.Refuse(this, prefixes, table, interfaceName is null ? 0 : InterfaceIndex(interfaceName));
    }

    public void AddAddress(string interfaceName, InterfaceAddress address)
    {
        var index = InterfaceIndex(interfaceName);
        Span<byte> attributes = stackalloc byte[48];
        var length = RouteMessages.WriteAddressAttributes(attributes, address.Address);
        var message = new IfAddrMsg
        {
            Family = address.Address.AddressFamily == AddressFamily.InterNetwork ? (byte)2 : (byte)10,
            PrefixLength = (byte)address.PrefixLength,
            Index = index,
        };
        var errno = _socket.Exchange(RTM_NEWADDR, NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, message, attributes[..length], []);
        if (errno != Errno.None)
        {
            throw new InterfaceSetupException($"the kernel refused address {address} on {interfaceName}: {Text(errno)}");
        }
    }

    public void SetMtuAndUp(string interfaceName, int mtu)
    {
        var index = InterfaceIndex(interfaceName);
        Span<byte> attributes = stackalloc byte[8];
        var length = NetlinkAttributes.Write(attributes, 0, IFLA_MTU, BitConverter.GetBytes(mtu));
        var message = new IfInfoMsg { Index = index, Flags = IFF_UP, Change = IFF_UP };
        var errno = _socket.Exchange(RTM_NEWLINK, NLM_F_ACK, message, attributes[..length], []);
        if (errno != Errno.None)
        {
            throw new InterfaceSetupException(string.Create(CultureInfo.InvariantCulture, $"the kernel refused MTU {mtu} and up on {interfaceName}: {Text(errno)}"));
        }
    }

    public int AddRoutes(string interfaceName, IReadOnlyList<IPPrefix> routes, uint table, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(routes);
        var interfaceIndex = InterfaceIndex(interfaceName);
        var refused = new List<RefusedRoute>();
        var added = Add(routes, interfaceIndex, table, refused, stop);
        RoutesInTheWay.RefuseExisting(this, refused, table, interfaceIndex);
        if (refused.Count > 0)
        {
            var shown = string.Join("; ", refused.Take(5).Select(r => $"{r.Prefix}: {r.Reason}"));
            throw new InterfaceSetupException(
                $"the kernel refused {refused.Count:N0} of {routes.Count:N0} AllowedIPs routes through {interfaceName}: {shown}{(refused.Count > 5 ? "; ..." : string.Empty)}");
        }

        return added;
    }

    /// <summary>The kernel's index of interface <paramref name="name"/> (RTM_GETLINK by IFLA_IFNAME).</summary>
    public int InterfaceIndex(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        var replies = new List<(ushort Type, byte[] Body)>();
        Span<byte> attributes = stackalloc byte[24];
        Span<byte> text = stackalloc byte[17];
        text.Clear();
        var written = name.Length <= 16 ? Encoding.UTF8.GetBytes(name, text[..16]) : 0;
        var end = NetlinkAttributes.Write(attributes, 0, IFLA_IFNAME, text[..(written + 1)]);
        var errno = _socket.Exchange(RTM_GETLINK, 0, default(IfInfoMsg), attributes[..end], replies);
        foreach (var (type, body) in replies)
        {
            if (errno == Errno.None && type == RTM_NEWLINK && body.Length >= Marshal.SizeOf<IfInfoMsg>())
            {
                return MemoryMarshal.Read<IfInfoMsg>(body).Index;
            }
        }

        throw new InterfaceSetupException($"no interface '{name}' to configure: {Text(errno == Errno.None ? Errno.ENODEV : errno)}");
    }

    /// <summary>The name of interface <paramref name="index"/>, or null when there is none (it went away).</summary>
    public string? InterfaceName(int index)
    {
        var replies = new List<(ushort Type, byte[] Body)>();
        if (_socket.Exchange(RTM_GETLINK, 0, new IfInfoMsg { Index = index }, [], replies) != Errno.None)
        {
            return null;
        }

        foreach (var (type, body) in replies)
        {
            var headerLength = Marshal.SizeOf<IfInfoMsg>();
            if (type == RTM_NEWLINK && body.Length >= headerLength && NetlinkAttributes.TryFind(body.AsSpan(headerLength), IFLA_IFNAME, out var name))
            {
                var nul = name.IndexOf((byte)0);
                return Encoding.UTF8.GetString(nul < 0 ? name : name[..nul]);
            }
        }

        return null;
    }

    /// <summary>
    /// The routes of table <paramref name="table"/> whose prefix is one of <paramref name="prefixes"/> exactly, read
    /// with one RTM_GETROUTE dump: what the kernel's table already holds for a prefix the tunnel would route.
    /// </summary>
    public List<KernelRoute> Find(IReadOnlyCollection<IPPrefix> prefixes, uint table)
    {
        ArgumentNullException.ThrowIfNull(prefixes);
        var wanted = prefixes.ToHashSet();
        var found = new List<KernelRoute>();
        var sequence = _socket.TakeSequences(1);
        Send(RouteMessages.WriteDump(_requests, sequence));
        while (true)
        {
            // The read blocks: the kernel writes the dump a buffer at a time as it is read, and always ends it with
            // NLMSG_DONE or an error.
            var received = _socket.Receive(_answers, wait: true);
            if (received <= 0)
            {
                throw new InterfaceSetupException($"reading the routing table over netlink failed: {Text((Errno)(-received))}");
            }

            var offset = 0;
            var buffer = _answers.AsSpan(0, received);
            while (NetlinkMessages.TryReadMessage(buffer, ref offset, out var message))
            {
                var type = NetlinkMessages.Read<ushort>(message, 4);
                if (NetlinkMessages.Read<uint>(message, 8) != sequence)
                {
                    continue;
                }

                if (type == NLMSG_DONE)
                {
                    return found;
                }

                if (type == NLMSG_ERROR)
                {
                    var error = message.Length >= NetlinkMessages.HeaderLength + 4 ? NetlinkMessages.Read<int>(message, NetlinkMessages.HeaderLength) : 0;
                    throw new InterfaceSetupException($"the kernel refused to list its routes: {Text((Errno)(-error))}");
                }

                if (KernelRoute.TryRead(message, out var route) && route.Table == table
                    && wanted.Contains(new IPPrefix(route.Destination, route.PrefixLength)))
                {
                    found.Add(route);
                }
            }
        }
    }

    /// <summary>
    /// Adds each route of <paramref name="routes"/> through interface <paramref name="interfaceIndex"/> to routing table
    /// <paramref name="table"/>, a batch at a time, stopping between batches once <paramref name="stop"/> is
    /// cancelled; never replaces one (<see cref="RouteMessages.AddFlags"/>). Returns how many were added; those the
    /// kernel refused are in <paramref name="refused"/> with its errno and reason, and the rest are still tried.
    /// </summary>
    private int Add(IReadOnlyList<IPPrefix> routes, int interfaceIndex, uint table, List<RefusedRoute> refused, CancellationToken stop)
    {
        var added = 0;
        for (var start = 0; start < routes.Count && !stop.IsCancellationRequested; start += Batch)
        {
            var count = Math.Min(Batch, routes.Count - start);
            var first = _socket.TakeSequences(count);
            var length = 0;
            for (var i = 0; i < count; i++)
            {
                var route = routes[start + i];
                length += RouteMessages.WriteAdd(_requests.AsSpan(length), first + (uint)i, route.Address, route.Length, interfaceIndex, table);
            }

            Send(length);
            var errors = new int?[count];
            ReadAnswers(first, errors, routes, start, refused);
            var missing = errors.Count(e => e is null);
            if (missing > 0)
            {
                throw new InterfaceSetupException($"the kernel acknowledged {count - missing} of {count} routes sent at once (from {routes[start]}); the rest are unknown");
            }

            added += errors.Count(e => e == 0);
        }

        return added;
    }

    private void Send(int length)
    {
        if (_socket.Send(_requests.AsSpan(0, length)) is var errno && errno != Errno.None)
        {
            throw new InterfaceSetupException($"sending routes over netlink failed: {Text(errno)}");
        }
    }

    /// <summary>
    /// Reads the acknowledgements of the batch whose first sequence number is <paramref name="first"/> into
    /// <paramref name="errors"/> (0 or -errno). The kernel handles a netlink request inside the send, so every answer is
    /// queued by now: a read that finds none ends the wait.
    /// </summary>
    private void ReadAnswers(uint first, int?[] errors, IReadOnlyList<IPPrefix> routes, int start, List<RefusedRoute> refused)
    {
        var pending = errors.Length;
        while (pending > 0)
        {
            var received = _socket.Receive(_answers, wait: false);
            if (received <= 0)
            {
                return;
            }

            var offset = 0;
            while (NetlinkMessages.TryReadAnswer(_answers.AsSpan(0, received), ref offset, out var type, out var sequence, out var error, out var reason))
            {
                var index = (long)sequence - first;
                if (type != NLMSG_ERROR || index < 0 || index >= errors.Length || errors[index] is not null)
                {
                    continue;
                }

                errors[index] = error;
                pending--;
                if (error != 0)
                {
                    var text = Text((Errno)(-error));
                    refused.Add(new RefusedRoute(routes[start + (int)index], -error, reason is null ? text : $"{text}: {reason}"));
                }
            }
        }
    }

    /// <summary>The C library's text for <paramref name="errno"/> ("File exists"), as ip(8) prints after "RTNETLINK answers:".</summary>
    private static string Text(Errno errno) => Marshal.GetPInvokeErrorMessage((int)errno);
}
