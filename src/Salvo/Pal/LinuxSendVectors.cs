using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

/// <summary>The native side of a <see cref="SendBatch"/>: mmsghdr, iovec and sockaddr slots on the pinned heap.</summary>
internal sealed unsafe class LinuxSendVectors
{
    private readonly MMsgHdr[] _headers;
    private readonly IOVec[] _iovecs;
    private readonly byte[] _names;
    private readonly byte* _arena;

    public LinuxSendVectors(SendBatch batch)
    {
        var count = batch.Capacity;
        _headers = GC.AllocateArray<MMsgHdr>(count, pinned: true);
        _iovecs = GC.AllocateArray<IOVec>(count, pinned: true);
        _names = GC.AllocateArray<byte>(count * LinuxReceiveVectors.NameStride, pinned: true);

        // Safety: all four arrays are on the pinned object heap and outlive every call that uses them
        // (this object is held by its batch, which holds the arena).
        _arena = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(batch.Arena));
        Headers = (MMsgHdr*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_headers));
        IOVecs = (IOVec*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_iovecs));
        Names = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_names));
    }

    public MMsgHdr* Headers { get; }

    public IOVec* IOVecs { get; }

    public byte* Names { get; }

    /// <summary>Points one header per entry at its payload and destination.</summary>
    public void Prepare(SendBatch batch, bool socketIsIPv6)
    {
        var entries = batch.Entries;
        for (var i = 0; i < batch.Count; i++)
        {
            ref readonly var entry = ref entries[i];
            IOVecs[i].Base = _arena + entry.Offset;
            IOVecs[i].Length = (nuint)entry.Length;
            ref var header = ref Headers[i].Header;
            header.IOVecs = &IOVecs[i];
            header.IOVecCount = 1;
            var name = Names + (i * LinuxReceiveVectors.NameStride);
            var nameLength = entry.Address.WriteSockaddr(new Span<byte>(name, LinuxReceiveVectors.NameStride), socketIsIPv6);
            header.Name = nameLength == 0 ? null : name;
            header.NameLength = (uint)nameLength;
            header.Control = null;
            header.ControlLength = 0;
            header.Flags = 0;
        }
    }
}
