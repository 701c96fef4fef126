namespace Salvo.Pal;

/// <summary>The kernel's count of datagrams dropped on a set of sockets because their receive buffer was full.</summary>
internal interface IKernelDropCounters
{
    /// <summary>Drops per socket, in the order the sockets were given; null when the counters cannot be read now.</summary>
    long[]? Read();
}
