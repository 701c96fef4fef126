using System.Runtime.Versioning;
using Salvo.Interop.Linux;

namespace Salvo.Pal;

// Safety: every pointer below lies inside one mapping of an AF_XDP socket's ring, made by Map with the length the kernel's
// XDP_MMAP_OFFSETS implies (the descriptors' offset plus entries x descriptor size) and unmapped only in Dispose; slot
// indices are masked by entries - 1 (entries is a power of two, which the kernel requires of every ring size).
/// <summary>
/// One of the four single-producer, single-consumer rings an AF_XDP socket shares with the kernel (fill, completion,
/// RX, TX). This process produces on the fill and TX rings and consumes the completion and RX rings. Each side keeps a
/// private copy of both indices and reads the other side's shared word only when its copy says the ring is full or
/// empty, as libxdp's xsk.h does: an acquire load of the other side's index before touching descriptors, a release
/// store of its own after (Documentation/networking/af_xdp.rst, "ring structure"). Not thread-safe: one thread per side.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class XskRing : IDisposable
{
    private readonly byte* _mapping;
    private readonly nuint _mappingLength;
    private readonly uint* _producer;
    private readonly uint* _consumer;
    private readonly uint* _flags;
    private readonly byte* _descriptors;
    private readonly uint _mask;
    private uint _localProducer;
    private uint _localConsumer;
    private int _disposed;

    private XskRing(byte* mapping, nuint mappingLength, in XdpRingOffset offsets, uint entries)
    {
        _mapping = mapping;
        _mappingLength = mappingLength;
        _producer = (uint*)(mapping + offsets.Producer);
        _consumer = (uint*)(mapping + offsets.Consumer);
        _flags = (uint*)(mapping + offsets.Flags);
        _descriptors = mapping + offsets.Desc;
        Entries = entries;
        _mask = entries - 1;
        _localProducer = Volatile.Read(ref *_producer);
        _localConsumer = Volatile.Read(ref *_consumer);
    }

    /// <summary>Slots in the ring, a power of two.</summary>
    public uint Entries { get; }

    /// <summary>Whether the kernel asked to be woken (XDP_RING_NEED_WAKEUP, set only on sockets bound with XDP_USE_NEED_WAKEUP).</summary>
    public bool NeedsWakeup => (Volatile.Read(ref *_flags) & XskConstants.XDP_RING_NEED_WAKEUP) != 0;

    /// <summary>
    /// Maps a ring of <paramref name="entries"/> descriptors of <paramref name="descriptorSize"/> bytes at
    /// <paramref name="pageOffset"/> of the socket; null with the errno when the kernel refuses.
    /// </summary>
    public static XskRing? TryMap(int descriptor, in XdpRingOffset offsets, uint entries, int descriptorSize, long pageOffset, out Errno errno)
    {
        var length = (nuint)(offsets.Desc + (ulong)entries * (ulong)descriptorSize);
        var mapping = Libc.Mmap(null, length, Constants.PROT_READ | Constants.PROT_WRITE,
            Constants.MAP_SHARED | Constants.MAP_POPULATE, descriptor, pageOffset);
        if (mapping == (void*)-1)
        {
            errno = Libc.LastErrno;
            return null;
        }

        errno = Errno.None;
        return new XskRing((byte*)mapping, length, offsets, entries);
    }

    /// <summary>Producer side: slots free to fill now, at most <paramref name="wanted"/>; reads the kernel's index only when the private copy says fewer.</summary>
    public uint Free(uint wanted)
    {
        var free = Entries - (_localProducer - _localConsumer);
        if (free < wanted)
        {
            _localConsumer = Volatile.Read(ref *_consumer);
            free = Entries - (_localProducer - _localConsumer);
        }

        return Math.Min(free, wanted);
    }

    /// <summary>Producer side: the index of the next slot to fill (slots from <see cref="Free"/> are filled in order, then <see cref="Submit"/>).</summary>
    public uint ProducerIndex => _localProducer;

    /// <summary>Producer side: publishes <paramref name="count"/> filled slots (a release store, after their descriptors).</summary>
    public void Submit(uint count)
    {
        _localProducer += count;
        Volatile.Write(ref *_producer, _localProducer);
    }

    /// <summary>Consumer side: entries ready to read now, at most <paramref name="wanted"/>; reads the kernel's index only when the private copy has none.</summary>
    public uint Ready(uint wanted)
    {
        var ready = _localProducer - _localConsumer;
        if (ready == 0)
        {
            _localProducer = Volatile.Read(ref *_producer);
            ready = _localProducer - _localConsumer;
        }

        return Math.Min(ready, wanted);
    }

    /// <summary>Consumer side, from any thread: whether the kernel has produced entries not yet read (changes no state).</summary>
    public bool HasEntries => Volatile.Read(ref *_producer) != Volatile.Read(ref _localConsumer);

    /// <summary>Consumer side: the index of the next entry to read.</summary>
    public uint ConsumerIndex => _localConsumer;

    /// <summary>Consumer side: gives <paramref name="count"/> read entries back to the kernel (a release store, after they were read).</summary>
    public void Release(uint count)
    {
        _localConsumer += count;
        Volatile.Write(ref *_consumer, _localConsumer);
    }

    /// <summary>A fill or completion ring's slot: one UMEM address.</summary>
    public ref ulong AddressAt(uint index) => ref ((ulong*)_descriptors)[index & _mask];

    /// <summary>An RX or TX ring's slot: one frame's address, length and options.</summary>
    public ref XdpDesc DescriptorAt(uint index) => ref ((XdpDesc*)_descriptors)[index & _mask];

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _ = Libc.Munmap(_mapping, _mappingLength);
        }
    }
}
