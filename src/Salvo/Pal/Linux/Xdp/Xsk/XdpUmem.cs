using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: Start addresses one anonymous mapping of Length bytes made in TryCreate and unmapped only in Dispose, after the
// socket that registered it is closed (the kernel holds its own pin on the pages from XDP_UMEM_REG until then).
/// <summary>
/// The packet memory an AF_XDP socket shares with the kernel (UMEM): one page-aligned anonymous mapping cut into
/// <see cref="FrameCount"/> frames of <see cref="FrameSize"/> bytes, registered with XDP_UMEM_REG, which pins its pages.
/// The first half of the frames is lent to the kernel for receiving (through the fill ring, each given back to it as soon
/// as its datagram is copied out); the second half is this process's for sending, kept on a free list and returned to it
/// by the completion ring.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class XdpUmem : IDisposable
{
    /// <summary>
    /// 4,096 bytes a frame: the largest chunk an aligned UMEM takes (one page), and room for a 1,500-byte MTU frame after
    /// the 256 bytes of XDP_PACKET_HEADROOM the kernel keeps in front of a received frame (include/uapi/linux/bpf.h).
    /// </summary>
    public const int DefaultFrameSize = 4096;

    /// <summary>4,096 frames (16 MiB): 2,048 to receive into, which a ring of 2,048 RX slots can fill, and 2,048 to send from.</summary>
    public const int DefaultFrameCount = 4096;

    /// <summary>The room the kernel leaves before a received frame's data (XDP_PACKET_HEADROOM in include/uapi/linux/bpf.h).</summary>
    public const int KernelHeadroom = 256;

    private readonly ulong[] _freeSendFrames;
    private int _freeCount;
    private int _disposed;

    private XdpUmem(byte* start, int frameSize, int frameCount)
    {
        Start = start;
        FrameSize = frameSize;
        FrameCount = frameCount;
        Length = (nuint)frameSize * (nuint)frameCount;
        _freeSendFrames = new ulong[frameCount / 2];
        for (var i = 0; i < _freeSendFrames.Length; i++)
        {
            _freeSendFrames[i] = (ulong)(frameCount / 2 + i) * (ulong)frameSize;
        }

        _freeCount = _freeSendFrames.Length;
    }

    public byte* Start { get; }

    public nuint Length { get; }

    public int FrameSize { get; }

    public int FrameCount { get; }

    /// <summary>Frames lent to the kernel for receiving: the first half.</summary>
    public int ReceiveFrames => FrameCount / 2;

    /// <summary>Maps the region; null with the errno when the kernel refuses (out of memory or address space).</summary>
    public static XdpUmem? TryCreate(int frameSize, int frameCount, out Errno errno)
    {
        var length = (nuint)frameSize * (nuint)frameCount;
        var mapping = Libc.Mmap(null, length, Constants.PROT_READ | Constants.PROT_WRITE,
            Constants.MAP_PRIVATE | Constants.MAP_ANONYMOUS | Constants.MAP_POPULATE, -1, 0);
        if (mapping == (void*)-1)
        {
            errno = Libc.LastErrno;
            return null;
        }

        errno = Errno.None;
        return new XdpUmem((byte*)mapping, frameSize, frameCount);
    }

    /// <summary>The registration that XDP_UMEM_REG takes: the whole region, aligned chunks of <see cref="FrameSize"/>, no headroom.</summary>
    public XdpUmemReg Registration => new() { Address = (ulong)Start, Length = Length, ChunkSize = (uint)FrameSize };

    /// <summary>The bytes of the frame at UMEM offset <paramref name="address"/>, from that offset to the frame's end.</summary>
    public Span<byte> Frame(ulong address, int length) => new(Start + address, length);

    /// <summary>Takes a free send frame; false when every one is in flight.</summary>
    public bool TryTakeSendFrame(out ulong address)
    {
        if (_freeCount == 0)
        {
            address = 0;
            return false;
        }

        address = _freeSendFrames[--_freeCount];
        return true;
    }

    /// <summary>Gives a send frame back (from the completion ring, or one taken and not sent).</summary>
    public void ReturnSendFrame(ulong address) => _freeSendFrames[_freeCount++] = address - address % (ulong)FrameSize;

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _ = Libc.Munmap(Start, Length);
        }
    }
}
