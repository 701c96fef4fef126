using System.Globalization;
using System.Runtime.InteropServices;
using Salvo.Perf.Cli;
using Salvo.Perf.Native;
using Salvo.Tunnel.Routing;

namespace Salvo.Perf.Tunnel.Linux;

/// <summary>
/// Installs routes through one interface with rtnetlink, many RTM_NEWROUTE messages per send, each acknowledged and
/// checked by its sequence number. One 'ip route' process per prefix added about 80 routes a second, so 20,000
/// prefixes took over four minutes; the kernel takes the same routes here in well under a second.
/// </summary>
internal sealed unsafe class NetlinkRoutes : IDisposable
{
    /// <summary>
    /// Requests per send. Each acknowledgement waits in the socket's receive queue until read, at about 1 KB of
    /// buffer accounting each (skb truesize); 128 of them fit the default 208 KiB even where raising it is refused.
    /// </summary>
    public const int Batch = 128;

    private const int ReceiveBufferSize = 1 << 20;

    private readonly int _fd;
    private readonly byte[] _requests = new byte[Batch * RouteMessages.MaxRequestSize];
    private readonly byte[] _answers = new byte[64 * 1024];
    private uint _sequence;

    private NetlinkRoutes(int fd) => _fd = fd;

    /// <summary>Opens a NETLINK_ROUTE socket.</summary>
    public static NetlinkRoutes Open()
    {
        var fd = Netlink.Socket(Netlink.AddressFamily, Netlink.RawCloseOnExec, Netlink.Route);
        if (fd < 0)
        {
            throw new CliException($"up: cannot open a netlink socket to add routes: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        // Each is a nicety: without CAP_ACK acknowledgements are longer, without EXT_ACK errors carry no text.
        Netlink.SetOption(fd, Netlink.NetlinkLevel, Netlink.CapAck, 1, sizeof(int));
        Netlink.SetOption(fd, Netlink.NetlinkLevel, Netlink.ExtendedAck, 1, sizeof(int));
        Netlink.SetOption(fd, Netlink.SocketLevel, Netlink.ReceiveBufferForce, ReceiveBufferSize, sizeof(int));
        return new NetlinkRoutes(fd);
    }

    /// <summary>The kernel's index of interface <paramref name="name"/>.</summary>
    public static int InterfaceIndex(string name)
    {
        var index = Netlink.InterfaceIndex(name);
        return index == 0
            ? throw new CliException($"up: no interface '{name}' to route through: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}")
            : (int)index;
    }

    /// <summary>The name of interface <paramref name="index"/>, or null when it has none (it went away).</summary>
    public static string? InterfaceName(int index)
    {
        var name = stackalloc byte[Netlink.InterfaceNameSize];

        // Safety: name is IF_NAMESIZE bytes, all if_indextoname writes, and outlives the call.
        return Netlink.InterfaceName((uint)index, name) is null ? null : Marshal.PtrToStringUTF8((nint)name);
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
        var sequence = ++_sequence;
        Send(RouteMessages.WriteDump(_requests, sequence));
        while (true)
        {
            nint received;

            // Safety: the answer buffer is pinned for the call and its length passed. The read blocks: the kernel
            // writes the dump a buffer at a time as it is read, and always ends it with NLMSG_DONE or an error.
            fixed (byte* answers = _answers)
            {
                received = Epoll.Receive(_fd, answers, (nuint)_answers.Length, 0);
            }

            if (received <= 0)
            {
                throw new CliException($"up: reading the routing table over netlink failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }

            var offset = 0;
            var buffer = _answers.AsSpan(0, (int)received);
            while (RouteMessages.TryReadMessage(buffer, ref offset, out var message))
            {
                var type = RouteMessages.Read<ushort>(message, 4);
                if (RouteMessages.Read<uint>(message, 8) != sequence)
                {
                    continue;
                }

                if (type == RouteMessages.Done)
                {
                    return found;
                }

                if (type == RouteMessages.Error)
                {
                    var error = message.Length >= RouteMessages.HeaderSize + 4 ? RouteMessages.Read<int>(message, RouteMessages.HeaderSize) : 0;
                    throw new CliException($"up: the kernel refused to list its routes: {Marshal.GetPInvokeErrorMessage(-error)}");
                }

                if (KernelRoute.TryRead(message, out var route) && route.Table == table && wanted.Contains(route.Prefix))
                {
                    found.Add(route);
                }
            }
        }
    }

    /// <summary>
    /// Adds each route of <paramref name="routes"/> through interface <paramref name="interfaceIndex"/> to routing table
    /// <paramref name="table"/> (254 is the main table), a batch at a time, stopping between batches once
    /// <paramref name="stop"/> is cancelled; never replaces one (<see cref="RouteMessages.AddFlags"/>). Returns the
    /// prefixes added; those the kernel refused are in <paramref name="refused"/> with its errno and reason, and the
    /// rest are still tried.
    /// </summary>
    public List<IPPrefix> Add(IReadOnlyList<IPPrefix> routes, int interfaceIndex, uint table, List<RefusedRoute> refused, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(routes);
        ArgumentNullException.ThrowIfNull(refused);
        var added = new List<IPPrefix>(routes.Count);
        for (var start = 0; start < routes.Count && !stop.IsCancellationRequested; start += Batch)
        {
            var count = Math.Min(Batch, routes.Count - start);
            var first = _sequence + 1;
            var length = 0;
            for (var i = 0; i < count; i++)
            {
                length += RouteMessages.WriteAdd(_requests.AsSpan(length), ++_sequence, routes[start + i], interfaceIndex, table);
            }

            Send(length);
            var errors = new int?[count];
            ReadAnswers(first, errors, routes, start, refused);
            var missing = errors.Count(e => e is null);
            if (missing > 0)
            {
                throw new CliException($"up: the kernel acknowledged {count - missing} of {count} routes sent at once (from {routes[start]}); the rest are unknown");
            }

            for (var i = 0; i < count; i++)
            {
                if (errors[i] == 0)
                {
                    added.Add(routes[start + i]);
                }
            }
        }

        return added;
    }

    public void Dispose() => Epoll.Close(_fd);

    private void Send(int length)
    {
        // Safety: the request buffer is pinned for the call and length is within it.
        fixed (byte* requests = _requests)
        {
            if (Epoll.Send(_fd, requests, (nuint)length, 0) != length)
            {
                throw new CliException($"up: sending routes over netlink failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
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
            nint received;

            // Safety: the answer buffer is pinned for the call and its length passed.
            fixed (byte* answers = _answers)
            {
                received = Epoll.Receive(_fd, answers, (nuint)_answers.Length, Netlink.DontWait);
            }

            if (received <= 0)
            {
                return;
            }

            var offset = 0;
            while (RouteMessages.TryReadAnswer(_answers.AsSpan(0, (int)received), ref offset, out var type, out var sequence, out var error, out var reason))
            {
                var index = (long)sequence - first;
                if (type != RouteMessages.Error || index < 0 || index >= errors.Length || errors[index] is not null)
                {
                    continue;
                }

                errors[index] = error;
                pending--;
                if (error != 0)
                {
                    var text = Marshal.GetPInvokeErrorMessage(-error);
                    refused.Add(new RefusedRoute(routes[start + (int)index], -error, reason is null ? text : string.Create(CultureInfo.InvariantCulture, $"{text}: {reason}")));
                }
            }
        }
    }
}
