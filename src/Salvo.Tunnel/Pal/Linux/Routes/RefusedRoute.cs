using Salvo.Tunnel.Routing;

namespace Salvo.Tunnel.Pal;

/// <summary>A route the kernel would not add: the prefix, its errno (EEXIST: the table holds that prefix) and its text.</summary>
internal readonly record struct RefusedRoute(IPPrefix Prefix, int Errno, string Reason)
{
    /// <summary>EEXIST (include/uapi/asm-generic/errno-base.h).</summary>
    public const int Exists = 17;
}
