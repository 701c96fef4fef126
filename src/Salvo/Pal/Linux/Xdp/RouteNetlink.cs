using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using static Salvo.Interop.Linux.NetlinkConstants;

namespace Salvo.Pal;

/// <summary>
/// What AF_XDP asks the kernel about links, addresses, routes and neighbours, over the one rtnetlink codec
/// (<see cref="NetlinkSocket"/> in src/Common), in the network namespace of the thread that opened it.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class RouteNetlink : IDisposable
{
    private readonly NetlinkSocket _socket;

    private RouteNetlink(NetlinkSocket socket) => _socket = socket;

    /// <exception cref="InvalidOperationException">The socket could not be opened.</exception>
    public static RouteNetlink Open() => new(NetlinkSocket.Open());

    public void Dispose() => _socket.Dispose();

    /// <summary>One request and its replies (every part of a dump, or the one answer); the errno the kernel answered.</summary>
    private Errno Exchange<TBody>(ushort type, bool dump, in TBody body, ReadOnlySpan<byte> attributes, List<(ushort Type, byte[] Body)> replies)
        where TBody : unmanaged =>
        _socket.Exchange(type, dump ? NLM_F_DUMP : (ushort)0, body, attributes, replies);
}
