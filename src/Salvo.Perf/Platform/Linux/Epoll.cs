using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salvo.Perf.Native;

// Safety: callers pass buffers pinned for the call with their true length; Add and Remove pass a 16-byte stackalloc,
// as large as struct epoll_event on any ABI (12 bytes packed on x86-64, 16 elsewhere).
/// <summary>
/// epoll(7) and the plain send/recv calls the lean load generator of <c>salvo connections</c> drives sockets with,
/// outside the runtime's socket engine.
/// </summary>
internal static unsafe partial class Epoll
{
    private const string Library = "libc.so.6";

    /// <summary>EPOLLIN (include/uapi/linux/eventpoll.h).</summary>
    public const uint In = 0x001;

    /// <summary>EPOLLERR: reported whether asked for or not.</summary>
    public const uint Error = 0x008;

    /// <summary>EPOLLHUP: reported whether asked for or not.</summary>
    public const uint HangUp = 0x010;

    /// <summary>EPOLL_CTL_ADD.</summary>
    public const int ControlAdd = 1;

    /// <summary>EPOLL_CTL_DEL.</summary>
    public const int ControlDelete = 2;

    /// <summary>EPOLL_CLOEXEC (= O_CLOEXEC on x86-64 and arm64).</summary>
    public const int CloseOnExec = 0x80000;

    /// <summary>MSG_NOSIGNAL: a send to a closed peer returns EPIPE rather than raising SIGPIPE.</summary>
    public const int NoSignal = 0x4000;

    /// <summary>EAGAIN (= EWOULDBLOCK on Linux).</summary>
    public const int TryAgain = 11;

    /// <summary>EINTR.</summary>
    public const int Interrupted = 4;

    /// <summary>
    /// The size of one <c>struct epoll_event</c> (a 32-bit event mask, then a 64-bit user word). glibc packs it on
    /// x86-64, for the 32-bit ABI's sake, so it is 12 bytes there and 16 with the word aligned elsewhere.
    /// </summary>
    public static int EventSize { get; } = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 12 : 16;

    /// <summary>Where the user word starts in one event (see <see cref="EventSize"/>).</summary>
    public static int EventDataOffset { get; } = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 4 : 8;

    [LibraryImport(Library, EntryPoint = "epoll_create1", SetLastError = true)]
    public static partial int Create(int flags);

    [LibraryImport(Library, EntryPoint = "epoll_ctl", SetLastError = true)]
    public static partial int Control(int epoll, int operation, int fd, byte* @event);

    [LibraryImport(Library, EntryPoint = "epoll_wait", SetLastError = true)]
    public static partial int Wait(int epoll, byte* events, int maxEvents, int timeoutMilliseconds);

    [LibraryImport(Library, EntryPoint = "send", SetLastError = true)]
    public static partial nint Send(int fd, byte* buffer, nuint length, int flags);

    [LibraryImport(Library, EntryPoint = "recv", SetLastError = true)]
    public static partial nint Receive(int fd, byte* buffer, nuint length, int flags);

    [LibraryImport(Library, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);

    /// <summary>Adds <paramref name="fd"/> to <paramref name="epoll"/> for <paramref name="events"/>, tagged with <paramref name="data"/>.</summary>
    /// <returns>0, or the errno.</returns>
    public static int Add(int epoll, int fd, uint events, ulong data)
    {
        var buffer = stackalloc byte[16];
        *(uint*)buffer = events;
        Unsafe.WriteUnaligned(buffer + EventDataOffset, data);
        return Control(epoll, ControlAdd, fd, buffer) == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    /// <summary>Removes <paramref name="fd"/> from <paramref name="epoll"/>.</summary>
    public static void Remove(int epoll, int fd)
    {
        // Kernels before 2.6.9 wanted a non-null event even for EPOLL_CTL_DEL (epoll_ctl(2), BUGS).
        var buffer = stackalloc byte[16];
        Control(epoll, ControlDelete, fd, buffer);
    }

    /// <summary>The event mask of the <paramref name="index"/>th event in a buffer epoll_wait filled.</summary>
    public static uint EventsAt(byte* events, int index) => *(uint*)(events + (index * EventSize));

    /// <summary>The user word of the <paramref name="index"/>th event in a buffer epoll_wait filled.</summary>
    public static ulong DataAt(byte* events, int index) => Unsafe.ReadUnaligned<ulong>(events + (index * EventSize) + EventDataOffset);
}
