using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>
/// The native side of a <see cref="ReceiveBatch"/>: one mmsghdr, iovec and sockaddr slot per buffer, all
/// on the pinned object heap and wired up once, so each recvmmsg only resets the lengths the kernel wrote.
/// </summary>
internal sealed unsafe class LinuxReceiveVectors
{
    /// <summary>Room for a sockaddr_in6 (28 bytes), rounded to 8.</summary>
    public const int NameStride = 32;

    private readonly MMsgHdr[] _headers;
    private readonly IOVec[] _iovecs;
    private readonly byte[] _names;

    public LinuxReceiveVectors(ReceiveBatch batch)
    {
        Count = batch.Capacity;
        _headers = GC.AllocateArray<MMsgHdr>(Count, pinned: true);
        _iovecs = GC.AllocateArray<IOVec>(Count, pinned: true);
        _names = GC.AllocateArray<byte>(Count * NameStride, pinned: true);

        // Safety: every array here and batch.Buffer live on the pinned object heap and are kept alive by
        // this object and its batch, so the addresses stored in the headers stay valid for their lifetime.
        var buffer = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(batch.Buffer));
        Headers = (MMsgHdr*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_headers));
        var iovecs = (IOVec*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_iovecs));
        Names = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_names));
        for (var i = 0; i < Count; i++)
        {
            iovecs[i].Base = buffer + ((long)i * batch.SlotStride);
            iovecs[i].Length = (nuint)batch.BufferSize;
            Headers[i].Header.IOVecs = &iovecs[i];
            Headers[i].Header.IOVecCount = 1;
            Headers[i].Header.Name = Names + (i * NameStride);
        }
    }

    public int Count { get; }

    public MMsgHdr* Headers { get; }

    public byte* Names { get; }

    /// <summary>Restores the in/out fields the kernel overwrote in the last call.</summary>
    public void Reset(int count)
    {
        for (var i = 0; i < count; i++)
        {
            ref var header = ref Headers[i].Header;
            header.NameLength = NameStride;
            header.ControlLength = 0;
            header.Flags = 0;
            Headers[i].Length = 0;
        }
    }

    public ReadOnlySpan<byte> Name(int index) => new(Names + (index * NameStride), (int)Headers[index].Header.NameLength);
}
