namespace Salvo.Interop.Linux;

// Safety: thin wrappers; each caller says why the pointers it passes are valid for the length of the call.
/// <summary>io_uring_setup(2), io_uring_enter(2) and io_uring_register(2) through syscall(2): glibc wraps none of them.</summary>
internal static unsafe class IoUringSyscalls
{
    /// <summary>A new ring's descriptor, or -1 with errno.</summary>
    public static int Setup(uint entries, IoUringParams* parameters) =>
        (int)Libc.Syscall(IoUringConstants.SYS_io_uring_setup, (nint)entries, (nint)parameters, 0, 0, 0, 0);

    /// <summary>Submits <paramref name="toSubmit"/> entries and, with IORING_ENTER_GETEVENTS, waits for <paramref name="minComplete"/> completions.</summary>
    public static int Enter(int ring, uint toSubmit, uint minComplete, uint flags) =>
        (int)Libc.Syscall(IoUringConstants.SYS_io_uring_enter, ring, (nint)toSubmit, (nint)minComplete, (nint)flags, 0, 0);

    /// <summary>As <see cref="Enter(int, uint, uint, uint)"/>, with IORING_ENTER_EXT_ARG: <paramref name="argument"/> bounds the wait.</summary>
    public static int Enter(int ring, uint toSubmit, uint minComplete, uint flags, IoUringGetEventsArg* argument) =>
        (int)Libc.Syscall(IoUringConstants.SYS_io_uring_enter, ring, (nint)toSubmit, (nint)minComplete, (nint)(flags | IoUringConstants.IORING_ENTER_EXT_ARG), (nint)argument, sizeof(IoUringGetEventsArg));

    public static int Register(int ring, uint opcode, void* argument, uint count) =>
        (int)Libc.Syscall(IoUringConstants.SYS_io_uring_register, ring, (nint)opcode, (nint)argument, (nint)count, 0, 0);
}
