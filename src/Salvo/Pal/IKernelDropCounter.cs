namespace Salvo.Pal;

/// <summary>
/// The kernel's count of datagrams it dropped on one socket instead of queuing them: nearly always because the receive
/// buffer was full (a bad checksum or a socket filter also count).
/// </summary>
internal interface IKernelDropCounter
{
    /// <summary>Drops since the socket opened (once it is closed, the last value read); null when the count cannot be read.</summary>
    long? Read();
}
