namespace Salvo.Tunnel.Tests.Support;

/// <summary>
/// A device whose first <paramref name="failures"/> reads throw what <paramref name="failure"/> makes (an
/// <see cref="IOException"/> as the kernel's read would, or anything else as a bug would), then reads as <paramref name="inner"/>.
/// </summary>
internal sealed class FailingReads(MemoryTun inner, int failures, Func<Exception> failure) : ITunDevice
{
    private int _reads;

    public string Name => inner.Name;

    public int ReadBatch(PacketBatch batch, TimeSpan timeout) =>
        Interlocked.Increment(ref _reads) <= failures ? throw failure() : inner.ReadBatch(batch, timeout);

    public bool Write(ReadOnlySpan<byte> packet) => inner.Write(packet);

    public void Dispose() => inner.Dispose();
}
