using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Salvo.Interop.Linux;
using Salvo.Internal;

namespace Salvo.Pal;

/// <summary>
/// One socket's multishot receive on an <see cref="IoUringEngine"/>: the msghdr template the kernel reads at each arm,
/// the inbox its completions land in, and the state only the engine's thread touches (slot, armed, starved).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class IoUringReceiver
{
    private readonly MsgHdr[] _template = GC.AllocateArray<MsgHdr>(1, pinned: true);
    private int _disposed;
    private int _armRequested;
    private int _wantsLarge;

    public IoUringReceiver(IoUringEngine engine, SafeHandle socket, SocketCounters counters, bool wantControl)
    {
        Engine = engine;
        Socket = new DescriptorHold(socket);
        Counters = counters;
        ControlReserve = wantControl ? ControlMessages.ReceiveStride : 0;
        // Safety: the template is on the pinned object heap and lives as long as this receiver, which the engine's
        // slot table holds while the kernel may read it.
        ref var header = ref _template[0];
        header.NameLength = LinuxReceiveVectors.NameStride;
        header.ControlLength = (nuint)ControlReserve;
        Template = (MsgHdr*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_template));
    }

    public IoUringEngine Engine { get; }

    /// <summary>The socket's descriptor, held from the first arm to the receive's last completion.</summary>
    public DescriptorHold Socket { get; }

    public SocketCounters Counters { get; }

    public IoUringInbox Inbox { get; } = new();

    /// <summary>Bytes each buffer holds for control messages: what the template offers, so the payload starts after it.</summary>
    public int ControlReserve { get; }

    public MsgHdr* Template { get; }

    public bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    /// <summary>Whether the socket's receives want buffers larger than the small group's.</summary>
    public bool WantsLarge => Volatile.Read(ref _wantsLarge) != 0;

    // Owned by the engine's thread.
    internal int Slot { get; set; } = -1;

    internal bool Armed { get; set; }

    internal bool Starved { get; set; }

    internal ProvidedBufferRing? ArmedBuffers { get; set; }

    /// <summary>Arms the multishot receive at the first receive, in the buffer group that fits <paramref name="bufferSize"/>.</summary>
    public void EnsureArmed(int bufferSize)
    {
        if (bufferSize > IoUringEngine.SmallPayloadBytes && Interlocked.Exchange(ref _wantsLarge, 1) == 0 && Volatile.Read(ref _armRequested) != 0)
        {
            Engine.Post(this, IoUringEngine.Command.Regroup);
        }

        if (Volatile.Read(ref _armRequested) == 0 && Interlocked.Exchange(ref _armRequested, 1) == 0)
        {
            Engine.Post(this, IoUringEngine.Command.Arm);
        }
    }

    /// <summary>Lets the next receive arm the socket again (after an error ended the multishot receive).</summary>
    public void RearmOnNextReceive() => Volatile.Write(ref _armRequested, 0);

    /// <summary>Stops receiving: waiters wake, queued buffers go back, and the engine cancels the receive.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        Span<InboxItem> leftover = stackalloc InboxItem[32];
        bool more;
        do
        {
            var count = Inbox.Close(leftover, out more);
            Engine.ReturnBuffers(leftover[..count]);
        }
        while (more);

        Engine.Post(this, IoUringEngine.Command.Close);
    }
}
