using System.Runtime.InteropServices;

namespace Salvo.Interop.Linux;

// Safety: a thin wrapper; each caller says why the attribute it passes is valid for the length of the call.
/// <summary>bpf(2) through syscall(2): glibc has no wrapper for it.</summary>
internal static unsafe class BpfSyscall
{
    private static readonly long s_number = RuntimeInformation.ProcessArchitecture == Architecture.Arm64
        ? BpfConstants.SYS_bpf_arm64
        : BpfConstants.SYS_bpf_x64;

    /// <summary>A new descriptor or 0 on success, -1 with errno on failure.</summary>
    public static int Call<TAttr>(int command, TAttr* attribute)
        where TAttr : unmanaged =>
        (int)Libc.Syscall(s_number, command, (nint)attribute, sizeof(TAttr), 0, 0, 0);
}
