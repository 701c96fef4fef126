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

    /// <summary>
    /// Replaces each route of <paramref name="routes"/> through interface <paramref name="interfaceIndex"/> in routing table
    /// <paramref name="table"/> (254 is the main table), a batch at
    /// a time, stopping between batches once <paramref name="stop"/> is cancelled. Returns how many were installed; the
    /// routes the kernel refused are in <paramref name="refused"/> with its reason, and the rest are still tried.
    /// </summary>
    public int Replace(IReadOnlyList<IPPrefix> routes, int interfaceIndex, uint table, List<(IPPrefix Prefix, string Reason)> refused, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(routes);
        ArgumentNullException.ThrowIfNull(refused);
        var installed = 0;
        for (var start = 0; start < routes.Count && !stop.IsCancellationRequested; start += Batch)
        {
            var count = Math.Min(Batch, routes.Count - start);
            var first = _sequence + 1;
            var length = 0;
            for (var i = 0; i < count; i++)
            {
                length += RouteMessages.WriteReplace(_requests.AsSpan(length), ++_sequence, routes[start + i], interfaceIndex, table);
            }

            Send(length);
            var answered = new bool[count];
            var failed = ReadAnswers(first, answered, routes, start, refused);
            var missing = answered.Count(a => !a);
            if (missing > 0)
            {
                throw new CliException($"up: the kernel acknowledged {count - missing} of {count} routes sent at once (from {routes[start]}); the rest are unknown");
            }

            installed += count - failed;
        }

        return installed;
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
    /// Reads the acknowledgements of the batch whose first sequence number is <paramref name="first"/>. The kernel
    /// handles a netlink request inside the send, so every answer is queued by now: a read that finds none ends the wait.
    /// </summary>
    private int ReadAnswers(uint first, bool[] answered, IReadOnlyList<IPPrefix> routes, int start, List<(IPPrefix, string)> refused)
    {
        var failed = 0;
        var pending = answered.Length;
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
                return failed;
            }

            var offset = 0;
            while (RouteMessages.TryReadAnswer(_answers.AsSpan(0, (int)received), ref offset, out var type, out var sequence, out var error, out var reason))
            {
                var index = (long)sequence - first;
                if (type != RouteMessages.Error || index < 0 || index >= answered.Length || answered[index])
                {
                    continue;
                }

                answered[index] = true;
                pending--;
                if (error != 0)
                {
                    failed++;
                    var text = Marshal.GetPInvokeErrorMessage(-error);
                    refused.Add((routes[start + (int)index], reason is null ? text : string.Create(CultureInfo.InvariantCulture, $"{text}: {reason}")));
                }
            }
        }

        return failed;
    }
}
